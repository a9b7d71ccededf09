import { type ErrorDetail, PlatenError } from "#shared/errors/platen-error.ts";
import { parseJsonBody } from "#shared/validation/json-body.ts";
import { illFormedPaths } from "#shared/validation/well-formed.ts";
import { dottedPath, pickCode, zodToPlatenError } from "#shared/validation/zod-error.ts";
import { checkParamsShape, MAX_PARAMS_DEPTH, tooDeepPath } from "./params-shape.ts";
import { type GenerationRequest, multipleRequestSchema, singleRequestSchema } from "./request-schema.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { requestText } from "./request-text.ts";

/**
 * Dotted path of an issue. In single requests the params live at `content.params`, but
 * the spec names their fields `params.<key>`, so that prefix is dropped.
 */
function fieldPath(path: PropertyKey[]): string {
  const dotted = dottedPath(path);
  return dotted === "content.params" || dotted.startsWith("content.params.") ? dotted.slice("content.".length) : dotted;
}

/** Where an item's params are reported: `params` (single) or `contents.<i>.params` (multiple). */
export const paramsField = (mode: "single" | "multiple", index: number) =>
  mode === "single" ? "params" : `contents.${index}.params`;

/** Parses the raw body of a generation request into the common shape, or throws the spec error. */
export function validateGenerationBody(rawBody: string | null, mode: "single" | "multiple"): GenerationRequest {
  const json = parseJsonBody(rawBody);
  checkNesting(json);
  checkWellFormed(json);
  const schema = mode === "single" ? singleRequestSchema : multipleRequestSchema;
  // reportInput: zod's locales name the received type from the input (zod-messages.ts)
  const parsed = schema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw zodToPlatenError(parsed.error, fieldPath);
  const data = parsed.data as Record<string, unknown>;
  const contents = (mode === "single" ? [data.content] : data.contents) as GenerationRequest["contents"];
  checkDuplicateNames(contents);
  contents.forEach((c, i) => {
    checkParamsShape(c.params, paramsField(mode, i));
  });
  // Present means present: an empty string is no registered endpoint's URL (400 WEBHOOK_URL_NOT_ALLOWED),
  // never "no webhookUrl", which would send the request's events to every endpoint.
  const webhookUrl = data.webhookUrl as string | undefined;
  return { mode, designId: data.designId as string, version: data.version as number, webhookUrl, contents };
}

/**
 * Params may nest MAX_PARAMS_DEPTH levels; the request around them (`contents.<i>.params`)
 * adds three. Checked on the whole body before anything else walks it.
 */
function checkNesting(json: unknown): void {
  const path = tooDeepPath(json, MAX_PARAMS_DEPTH + 3);
  if (!path) return;
  const field = fieldPath(path);
  throw new PlatenError("VALIDATION_FAILED", {
    details: [
      {
        field,
        code: "VALIDATION_FAILED",
        text: fillBoth(requestText.tooDeep, { depth: MAX_PARAMS_DEPTH }),
      },
    ],
  });
}

/**
 * Every string of the body, keys included, must be well-formed Unicode (shared/validation/well-formed.ts):
 * a lone surrogate in a file name is FILE_NAME_INVALID, anywhere else VALIDATION_FAILED, each detail naming
 * its field. Checked on the whole body before the schema, so the four generation routes refuse it alike
 * and nothing is stored or billed.
 */
function checkWellFormed(json: unknown): void {
  const paths = illFormedPaths(json);
  if (!paths.length) return;
  const details: ErrorDetail[] = paths.map((path) => {
    const field = fieldPath(path);
    const isFileName =
      (path.length === 2 && path[0] === "content" && path[1] === "fileName") ||
      (path.length === 3 && path[0] === "contents" && path[2] === "fileName");
    return {
      field,
      code: isFileName ? "FILE_NAME_INVALID" : "VALIDATION_FAILED",
      text: requestText.illFormed,
    };
  });
  throw new PlatenError(pickCode(details), { details });
}

/**
 * OpenAPI generateSyncMultiple: fileName unique within contents, compared case-insensitively; field is
 * `contents`.
 */
function checkDuplicateNames(contents: GenerationRequest["contents"]): void {
  const seen = new Map<string, number>();
  const details: ErrorDetail[] = [];
  contents.forEach((c, i) => {
    const key = c.fileName.toLocaleLowerCase("und");
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else {
      details.push({
        field: "contents",
        code: "FILE_NAME_DUPLICATED",
        text: fillBoth(requestText.duplicateFileName, { fileName: c.fileName, index: i, first }),
      });
    }
  });
  if (details.length) throw new PlatenError("FILE_NAME_DUPLICATED", { details });
}
