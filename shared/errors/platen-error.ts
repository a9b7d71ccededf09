import type { Bilingual } from "#shared/i18n/texts.ts";
import { type ErrorCode, catalogue } from "./catalogue.ts";

/**
 * One entry of the README.md#errors `details` array. `text` says what is wrong in both
 * languages (a table's entry, filled with `fillBoth`); the error body answers it as `message`
 * in the request's language.
 */
export interface ErrorDetail {
  text: Bilingual;
  field?: string;
  expected?: string;
  code?: string;
  /** A design bundle's file the problem is in (`template.liquid`, `design.json`, `assets/logo.png`), with its position when known. */
  file?: string;
  line?: number;
  column?: number;
  /** DESIGN_VERSION_CONFLICT: the version that won. */
  latestVersion?: number;
}

/**
 * A text the service does not word itself (a library's message, a value the caller sent),
 * the same in both languages.
 */
export function untranslated(text: string): Bilingual {
  return { en: text, ja: text };
}

/** A value of a catalogue message's `{placeholder}`: the same in both languages, or worded in each. */
export type MessageVar = string | number | Bilingual;

/** A message's placeholders in one language. */
export function varsIn(vars: Record<string, MessageVar>, lang: "en" | "ja"): Record<string, string | number> {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, typeof v === "object" ? v[lang] : v]));
}

export interface PlatenErrorOptions {
  details?: ErrorDetail[];
  vars?: Record<string, MessageVar>;
  retryAfter?: number;
  cause?: unknown;
}

/**
 * The root error of the domain: a catalogue code, its status, and what the HTTP edge
 * needs to build the error body (README.md#errors). `expose` follows node-oidc-provider: internals of
 * 5xx errors are never shown to clients.
 */
export class PlatenError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly vars: Record<string, MessageVar>;
  readonly retryAfter?: number;

  constructor(code: ErrorCode, options: PlatenErrorOptions = {}) {
    super(code, { cause: options.cause });
    this.name = "PlatenError";
    this.code = code;
    this.status = catalogue[code].status;
    this.details = options.details ?? [];
    this.vars = options.vars ?? {};
    this.retryAfter = options.retryAfter;
  }

  get expose(): boolean {
    return this.status < 500;
  }
}

/** Type guard that also survives duplicate module instances (bundles, test workers). */
export function isPlatenError(err: unknown): err is PlatenError {
  return err instanceof PlatenError || (err instanceof Error && err.name === "PlatenError" && "code" in err);
}
