import { STATUS_CODES } from "node:http";
import { catalogue, formatMessage } from "./catalogue.ts";
import { type ErrorDetail, type PlatenError, varsIn } from "./platen-error.ts";
import type { Language } from "./language.ts";

/** The error body (README.md#errors). */
export interface ErrorBody {
  statusCode: number;
  code: string;
  message: string | string[];
  error: string;
  details: {
    field?: string;
    expected?: string;
    code?: string;
    message: string;
    file?: string;
    line?: number;
    column?: number;
    latestVersion?: number;
  }[];
  docsUrl: string;
  retryAfter?: number;
}

/** Error documentation pages live on the site; anchors are the code in lowercase. */
export function docsUrl(siteUrl: string, code: string, lang: Language): string {
  const base = siteUrl.replace(/\/$/, "");
  return `${base}${lang === "ja" ? "/ja" : ""}/docs/errors#${code.toLowerCase()}`;
}

/** A detail's text in a language (the English one where it has no other). */
export function detailMessage(d: ErrorDetail, lang: Language): string {
  return d.text[lang] || d.text.en;
}

/**
 * Builds the body of an error. Validation errors (400 with details) carry the spec's
 * array-of-strings message, each prefixed with its field path.
 */
export function buildErrorBody(err: PlatenError, lang: Language, siteUrl: string): ErrorBody {
  const entry = catalogue[err.code];
  const headline = formatMessage(entry[lang], {
    ...(err.retryAfter !== undefined && { retryAfter: err.retryAfter }),
    ...varsIn(err.vars, lang),
  });
  const details = err.details.map((d) => ({
    ...(d.field !== undefined && { field: d.field }),
    ...(d.expected !== undefined && { expected: d.expected }),
    ...(d.code !== undefined && { code: d.code }),
    message: detailMessage(d, lang),
    ...(d.file !== undefined && { file: d.file }),
    ...(d.line !== undefined && { line: d.line }),
    ...(d.column !== undefined && { column: d.column }),
    ...(d.latestVersion !== undefined && { latestVersion: d.latestVersion }),
  }));
  const isValidation = err.status === 400 && details.length > 0;
  return {
    statusCode: err.status,
    code: err.code,
    message: isValidation ? details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)) : headline,
    error: STATUS_CODES[err.status] ?? "Error",
    details,
    docsUrl: docsUrl(siteUrl, err.code, lang),
    ...(err.retryAfter !== undefined && { retryAfter: err.retryAfter }),
  };
}
