import type { ZodError } from "zod";
import type * as z from "zod";
import type { ErrorCode } from "#shared/errors/catalogue.ts";
import { type ErrorDetail, PlatenError } from "#shared/errors/platen-error.ts";
import { issueText } from "./zod-messages.ts";

type ZodIssue = z.core.$ZodIssue;

function issueKind(issue: ZodIssue): ErrorCode {
  const k = issue.code === "custom" ? (issue.params as { kind?: ErrorCode } | undefined)?.kind : undefined;
  return k ?? "VALIDATION_FAILED";
}

/** README.md#errors: the kind's own code when every issue is of one kind, else VALIDATION_FAILED. */
export function pickCode(details: { code?: string }[]): ErrorCode {
  const kinds = new Set(details.map((d) => d.code ?? "VALIDATION_FAILED"));
  return kinds.size === 1 ? ([...kinds][0] as ErrorCode) : "VALIDATION_FAILED";
}

/** The dotted field path of an issue (`contents.0.fileName`). */
export const dottedPath = (path: PropertyKey[]): string => path.map(String).join(".");

/**
 * Maps zod issues to spec details with dotted field paths, in English and Japanese. A body
 * whose fields the spec names differently passes its own `fieldOf` (generation requests).
 */
export function zodToPlatenError(error: ZodError, fieldOf: (path: PropertyKey[]) => string = dottedPath): PlatenError {
  const details: ErrorDetail[] = error.issues.flatMap(splitUnknownKeys).map((issue) => {
    const field = fieldOf(issue.path);
    return { ...(field && { field }), code: issueKind(issue), text: issueText(issue) };
  });
  return new PlatenError(pickCode(details), { details });
}

/** One issue per unknown property, so each detail names its own field (`content.colour`). */
function splitUnknownKeys(issue: ZodIssue): ZodIssue[] {
  if (issue.code !== "unrecognized_keys") return [issue];
  return issue.keys.map((key) => ({ ...issue, keys: [key], path: [...issue.path, key] }));
}
