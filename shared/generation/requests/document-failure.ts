import { catalogue, type ErrorCode, formatMessage } from "#shared/errors/catalogue.ts";
import { type ErrorDetail, PlatenError, varsIn } from "#shared/errors/platen-error.ts";
import { RenderError, type RenderErrorCode } from "#shared/render/render-error.ts";

/** Render failures that are the document's own: each has a catalogue code of its own (422). */
const DOCUMENT_CODES: Partial<Record<RenderErrorCode, ErrorCode>> = {
  PAGE_LIMIT_EXCEEDED: "DOCUMENT_PAGE_LIMIT_EXCEEDED",
  HTML_TOO_LARGE: "DOCUMENT_HTML_LIMIT_EXCEEDED",
  PDF_TOO_LARGE: "DOCUMENT_PDF_LIMIT_EXCEEDED",
  RENDER_TIMEOUT: "RENDER_TIMEOUT",
};

/** True for a render that ran out of time or found no browser in time (sync: the 504 of README.md#errors). */
export const isRenderDeadline = (err: unknown): boolean =>
  err instanceof RenderError && (err.code === "RENDER_TIMEOUT" || err.code === "BROWSER_BUSY");

/**
 * A document's own failure as the client's error (sync answers it): a document limit, or its template
 * failing on these params (422 TEMPLATE_FAILED naming the reason); undefined for anything else.
 */
export function documentLimitError(err: unknown): PlatenError | undefined {
  if (!(err instanceof RenderError) || err.code === "RENDER_TIMEOUT") return undefined;
  if (err.code === "TEMPLATE_FAILED")
    return new PlatenError("TEMPLATE_FAILED", { vars: { reason: templateReason(err) }, cause: err });
  if (err.code === "EINVOICE_INVALID")
    return new PlatenError("EINVOICE_INVALID", { details: einvoiceDetails(err), cause: err });
  const code = DOCUMENT_CODES[err.code];
  return code ? new PlatenError(code, { vars: limitVars(err), cause: err }) : undefined;
}

/** One detail per broken rule: the model path as `field`, the rule id as `code`, the message in both languages. */
export function einvoiceDetails(err: RenderError): ErrorDetail[] {
  return (err.violations ?? []).map((v) => ({
    ...(v.path && { field: v.path }),
    code: v.rule,
    text: v.message,
  }));
}

/**
 * What a template failure says, on one line and bounded: the filter's or Liquid's own message (the
 * value and the symbology of a refused barcode, the line of a Liquid error). The template is the
 * workspace's own, so nothing of ours is in it.
 */
export function templateReason(err: RenderError): string {
  const text = err.message
    .replace(/^template error: /, "")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/**
 * Refusals a retry cannot change: the request's design is gone (asking again finds it gone again), the
 * document cannot be signed (its identity removed; a time-stamp authority already asked three times), or its
 * record fields do not evaluate.
 */
const PERMANENT_CODES = new Set<ErrorCode>([
  "DESIGN_NOT_FOUND",
  "DESIGN_VERSION_NOT_FOUND",
  "SIGNING_FAILED",
  // The same params evaluate the same record fields on every retry (shared/records/README.md).
  "RECORD_FIELDS_INVALID",
]);

/**
 * Why a queued file fails for good (async), or undefined when a retry may succeed. Permanent: what the
 * document itself causes (template errors, document limits, running out of its time, data that cannot be
 * written into the PDF) and a design that no longer exists. Transient, so retried: a browser crash or a busy
 * renderer (RENDER_FAILED, BROWSER_BUSY) and every storage or queue error (S3, DynamoDB, SQS), which are not
 * RenderErrors. A template failure is TEMPLATE_FAILED, its message naming the reason.
 */
export function permanentFileFailure(err: unknown): { errorCode: ErrorCode; errorMessage: string } | undefined {
  if (err instanceof PlatenError && PERMANENT_CODES.has(err.code)) {
    return { errorCode: err.code, errorMessage: formatMessage(catalogue[err.code].en, varsIn(err.vars, "en")) };
  }
  if (!(err instanceof RenderError) || !err.permanent) return undefined;
  if (err.code === "DOCUMENT_DATA_INVALID")
    return {
      errorCode: "VALIDATION_FAILED",
      errorMessage: "The file name or passthrough could not be written into the PDF.",
    };
  if (err.code === "EINVOICE_INVALID")
    return { errorCode: "EINVOICE_INVALID", errorMessage: `${catalogue.EINVOICE_INVALID.en} ${templateReason(err)}` };
  if (err.code === "TEMPLATE_FAILED")
    return {
      errorCode: "TEMPLATE_FAILED",
      errorMessage: formatMessage(catalogue.TEMPLATE_FAILED.en, { reason: templateReason(err) }),
    };
  const code = DOCUMENT_CODES[err.code];
  if (!code)
    return {
      errorCode: "INTERNAL_ERROR",
      errorMessage: `${catalogue.INTERNAL_ERROR.en} The document could not be rendered.`,
    };
  return { errorCode: code, errorMessage: formatMessage(catalogue[code].en, limitVars(err)) };
}

const limitVars = (err: RenderError): Record<string, string> =>
  err.limit === undefined ? {} : { limit: err.limit.toLocaleString("en-US") };
