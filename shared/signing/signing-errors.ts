import { PlatenError } from "#shared/errors/platen-error.ts";
import type { Bilingual } from "#shared/i18n/texts.ts";

/**
 * 400 VALIDATION_FAILED naming the field of a signing identity that was refused (`password`,
 * `certificate`, `privateKey`, `pkcs12`), with the reason in English and Japanese.
 */
export function identityRefused(field: string, text: Bilingual, cause?: unknown): PlatenError {
  return new PlatenError("VALIDATION_FAILED", {
    details: [{ field, code: "VALIDATION_FAILED", text }],
    ...(cause !== undefined && { cause }),
  });
}

/**
 * Why a B-T signature could not get its time-stamp. `transient` is true when asking again later may
 * succeed (the TSA is down, timed out, answered 5xx or "waiting"); false when it will not (the TSA
 * refused the request, or its answer does not match what was asked). The caller never gets a B-B
 * signature instead.
 */
export class TimestampError extends Error {
  readonly transient: boolean;

  constructor(message: string, options: { transient: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TimestampError";
    this.transient = options.transient;
  }
}

/** A PDF this signer cannot extend (a cross-reference stream, an encrypted file, a page that does not exist). */
export class SignPdfError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SignPdfError";
  }
}
