import type { ZodType } from "zod";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { isJsonContentType } from "#shared/validation/content-type.ts";
import { zodToPlatenError } from "#shared/validation/zod-error.ts";
import { httpText } from "./http-text.ts";

/** A JSON text parsed with a schema: 400 VALIDATION_FAILED with details when it is not JSON or does not fit. */
export function parseBody<T>(raw: string | null, schema: ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? "");
  } catch {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [{ text: httpText.bodyNotObject }],
    });
  }
  // reportInput: the messages name the received type ("expected boolean, received string"), not "is required".
  const parsed = schema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw zodToPlatenError(parsed.error);
  return parsed.data;
}

/**
 * The body of a management or design-API call: sent as JSON (`Content-Type: application/json`),
 * then parsed with the route's schema. A JSON text under another type (`text/plain`, a form
 * type, none) is refused: those are the types a cross-site form or a script can send without a
 * CORS preflight, so accepting them would leave only the origin check between a visitor's
 * login session and a change (defence in depth). An empty body is left to the schema.
 */
export function parseJsonBody<T>(
  req: { bodyText(): string | null; header(name: string): string | undefined },
  schema: ZodType<T>,
): T {
  const raw = req.bodyText();
  if (raw?.trim() && !isJsonContentType(req.header("content-type"))) {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        {
          field: "Content-Type",
          text: httpText.jsonContentType,
        },
      ],
    });
  }
  return parseBody(raw, schema);
}
