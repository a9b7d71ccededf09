/** Why a render failed; the generation layer maps every code to FILE_GENERATION_FAILED / INTERNAL_ERROR. */
export type RenderErrorCode =
  /** The per-render time budget ran out; the browser doing the work was killed. */
  | "RENDER_TIMEOUT"
  /** The design's Liquid template failed to parse or render (syntax, unknown filter, a limit). */
  | "TEMPLATE_FAILED"
  /** Chromium or the PDF post-processing failed (also after the one transparent retry). */
  | "RENDER_FAILED";

/**
 * The only error the renderer throws. The full cause is kept for the logs; the message
 * is short and safe to show to the workspace that owns the design.
 */
export class RenderError extends Error {
  readonly code: RenderErrorCode;

  constructor(code: RenderErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RenderError";
    this.code = code;
  }
}

/** Wraps anything that is not already a RenderError as `code`. */
export function toRenderError(error: unknown, code: RenderErrorCode, message: string): RenderError {
  if (error instanceof RenderError) return error;
  return new RenderError(code, message, { cause: error });
}
