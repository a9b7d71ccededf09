import { type ParseError, parse as scanJson } from "jsonc-parser";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { validationText } from "./validation-text.ts";

/**
 * Parses a request body that must be JSON. A body that is not says so and where
 * (line and column, counted in characters), in English and Japanese, as a
 * VALIDATION_FAILED detail without a field (the body as a whole is wrong).
 */
export function parseJsonBody(raw: string | null | undefined): unknown {
  if (raw === null || raw === undefined || raw.trim() === "") {
    throw bodyError(validationText.bodyEmpty);
  }
  try {
    return JSON.parse(raw);
  } catch (cause) {
    const { line, column } = lineAndColumn(raw, errorOffset(raw, cause as Error));
    throw bodyError(fillBoth(validationText.bodyNotJson, { line, column, reason: reason(cause as Error) }), cause);
  }
}

/**
 * Where parsing failed. V8 names a position for most mistakes but not for an unexpected
 * token ("Unexpected token 'o', "not json" is not valid JSON"); jsonc-parser's strict scan
 * finds the offending token in every case, so it decides, and V8's position is the fallback.
 */
function errorOffset(raw: string, cause: Error): number {
  const errors: ParseError[] = [];
  scanJson(raw, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors[0]) return errors[0].offset;
  const v8 = / at position (\d+)/.exec(cause.message);
  return v8 ? Number(v8[1]) : 0;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * V8's reason without the part that quotes the body ("…" is not valid JSON) or repeats the
 * position: bodies carry params, which errors never echo. A body that is one bare word
 * (`undefined`, `NaN`) gets only the quote from V8, so nothing of its own is left.
 */
const reason = (cause: Error) =>
  cause.message.replace(/(?:^|, )".*" is not valid JSON$/s, "").replace(/ in JSON at position \d+.*$/s, "") ||
  "unexpected text";

function bodyError(text: Bilingual, cause?: unknown): PlatenError {
  return new PlatenError("VALIDATION_FAILED", { details: [{ code: "VALIDATION_FAILED", text }], cause });
}
