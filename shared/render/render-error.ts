import type { EinvoiceViolation } from "#shared/einvoice/check.ts";

/** Why a render failed; the generation layer maps each code to a catalogue code (document-failure.ts). */
export type RenderErrorCode =
  /** The document used up its time budget (Chromium killed, or Liquid's render limit): it will not render in time. */
  | "RENDER_TIMEOUT"
  /** No browser became free (or finished launching) before the deadline: the renderer was busy, the document may be fine. */
  | "BROWSER_BUSY"
  /** The design's Liquid template failed to parse or render (syntax, unknown filter). */
  | "TEMPLATE_FAILED"
  /** The document's e-invoice breaks an EN 16931 or format rule (`violations` name each field and rule). */
  | "EINVOICE_INVALID"
  /** The template wrote more than the HTML limit, or allocated more than Liquid's memory limit. */
  | "HTML_TOO_LARGE"
  /** The document has more pages than the page limit. */
  | "PAGE_LIMIT_EXCEEDED"
  /** The printed PDF is larger than the PDF size limit. */
  | "PDF_TOO_LARGE"
  /**
   * The PDF printed, but the document's own data (its title, the passthrough metadata) could not be written
   * into it: post-processing is a pure function of those bytes and that data, so it fails again every time.
   */
  | "DOCUMENT_DATA_INVALID"
  /** Chromium failed (also after the one transparent retry), or the renderer was closed: a retry may succeed. */
  | "RENDER_FAILED";

/** Codes that are the document's own doing: rendering it again gives the same answer. */
const DOCUMENT_CODES = new Set<RenderErrorCode>([
  "RENDER_TIMEOUT",
  "TEMPLATE_FAILED",
  "EINVOICE_INVALID",
  "HTML_TOO_LARGE",
  "PAGE_LIMIT_EXCEEDED",
  "PDF_TOO_LARGE",
  "DOCUMENT_DATA_INVALID",
]);

/**
 * The only error the renderer throws. The full cause is kept for the logs; the message
 * is short and safe to show to the workspace that owns the design.
 */
export class RenderError extends Error {
  readonly code: RenderErrorCode;
  /** The limit that was exceeded (pages, characters, bytes or milliseconds), for the client's message. */
  readonly limit?: number;
  /** EINVOICE_INVALID: each field and rule the invoice breaks. */
  readonly violations?: readonly EinvoiceViolation[];

  constructor(
    code: RenderErrorCode,
    message: string,
    options?: { cause?: unknown; limit?: number; violations?: readonly EinvoiceViolation[] },
  ) {
    super(message, options);
    this.name = "RenderError";
    this.code = code;
    if (options?.limit !== undefined) this.limit = options.limit;
    if (options?.violations !== undefined) this.violations = options.violations;
  }

  /** True when the document itself is the cause: a retry cannot succeed. */
  get permanent(): boolean {
    return DOCUMENT_CODES.has(this.code);
  }
}

/** Wraps anything that is not already a RenderError as `code`. */
export function toRenderError(error: unknown, code: RenderErrorCode, message: string): RenderError {
  if (error instanceof RenderError) return error;
  return new RenderError(code, message, { cause: error });
}
