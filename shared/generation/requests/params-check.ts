import type { ParameterSpec } from "#shared/designs/bundle-schema.ts";
import type { ErrorDetail } from "#shared/errors/platen-error.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { requestText } from "./request-text.ts";

export type Expected = "string" | "number" | "date" | "boolean" | "object" | "array";

const EXPECTED: Record<ParameterSpec["type"], Expected> = {
  text: "string",
  number: "number",
  date: "date",
  boolean: "boolean",
  collection: "object",
  array: "array",
};

/** OpenAPI getDesignParameters: an ISO 8601 date, optionally with a time. */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

/** A real calendar date and clock time: 2025-02-30 or 25:99 are not dates. */
function isIsoDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, offH = 0, offM = 0] = m
    .slice(1)
    .map((v) => Number(v ?? 0));
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  const sameDay = date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day;
  return sameDay && hour! <= 23 && minute! <= 59 && second! <= 59 && offH! <= 23 && offM! <= 59;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const describeValue = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);

function matches(spec: ParameterSpec, value: unknown): boolean {
  switch (spec.type) {
    case "text":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "date":
      return typeof value === "string" && isIsoDate(value);
    case "collection":
      return isObject(value);
    case "array":
      return Array.isArray(value);
  }
}

/**
 * Checks params against a design's schema (OpenAPI generateSyncSingle, getDesignParameters) and returns what
 * the template sees: schema keys only (unknown keys ignored), missing booleans at their default,
 * other missing keys absent (they render empty). `null` counts as missing.
 * Mismatches are collected with nested paths (`params.明細.3.数量`).
 */
export function checkParams(
  schema: ParameterSpec[],
  params: Record<string, unknown>,
  field: string,
): { values: Record<string, unknown>; mismatches: ErrorDetail[] } {
  const values: Record<string, unknown> = {};
  const mismatches: ErrorDetail[] = [];
  for (const spec of schema) {
    const value = Object.hasOwn(params, spec.name) ? params[spec.name] : undefined;
    const path = `${field}.${spec.name}`;
    if (value === undefined || value === null) {
      if (spec.type === "boolean" && typeof spec.default === "boolean") values[spec.name] = spec.default;
      continue;
    }
    if (!matches(spec, value)) {
      mismatches.push(mismatch(path, spec, value));
      continue;
    }
    values[spec.name] = nested(spec, value, path, mismatches);
  }
  return { values, mismatches };
}

function nested(spec: ParameterSpec, value: unknown, path: string, mismatches: ErrorDetail[]): unknown {
  if (spec.type === "collection" && spec.spec) {
    const inner = checkParams(spec.spec, value as Record<string, unknown>, path);
    mismatches.push(...inner.mismatches);
    return inner.values;
  }
  if (spec.type === "array" && spec.spec) {
    return (value as unknown[]).map((row, i) => {
      if (!isObject(row)) {
        mismatches.push({
          field: `${path}.${i}`,
          expected: "object",
          code: "PARAMS_TYPE_MISMATCH",
          text: fillBoth(requestText.typeMismatch, { expected: "object", got: describeValue(row) }),
        });
        return {};
      }
      const inner = checkParams(spec.spec!, row, `${path}.${i}`);
      mismatches.push(...inner.mismatches);
      return inner.values;
    });
  }
  return value;
}

function mismatch(field: string, spec: ParameterSpec, value: unknown): ErrorDetail {
  const expected = EXPECTED[spec.type];
  const got = describeValue(value);
  if (expected === "date") {
    // the value itself is not echoed: params may hold personal data (errors never repeat them)
    const what = typeof value === "string" ? requestText.notADate : fillBoth(requestText.typeName, { type: got });
    return {
      field,
      expected,
      code: "PARAMS_TYPE_MISMATCH",
      text: fillBoth(requestText.dateMismatch, { format: requestText.dateFormat, got: what }),
    };
  }
  return {
    field,
    expected,
    code: "PARAMS_TYPE_MISMATCH",
    text: fillBoth(requestText.typeMismatch, { expected, got }),
  };
}
