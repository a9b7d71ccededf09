import { availableParallelism, totalmem } from "node:os";
import { durationMs, type Environment, environment, flag, positiveInt } from "#shared/config/settings.ts";

/** Tunables of the renderer; `readRenderConfig` fills them from the environment. */
export interface RendererConfig {
  /** Warm browsers in the pool (RENDER_BROWSERS). One single-process Chromium uses one core. */
  browsers: number;
  /** Renders after which a browser is closed and relaunched in the background (RENDER_RECYCLE_AFTER). */
  recycleAfter: number;
  /**
   * Renders after which a browser's garbage is collected before it serves again
   * (RENDER_GC_EVERY), see BrowserPool: a value above RECYCLE_AFTER never collects.
   */
  gcEvery: number;
  /** Default time budget of one render, template to finished PDF (RENDER_TIMEOUT_MS). */
  timeoutMs: number;
  /** Chromium binary (CHROMIUM_PATH); otherwise the one inflated by @sparticuz/chromium. */
  chromiumPath?: string;
  /** A folder holding the font files (RENDER_FONT_DIR), e.g. a Lambda layer; otherwise node_modules. */
  fontDir?: string;
  /** Per-document limits (PLATEN_MAX_PAGES, PLATEN_MAX_HTML_CHARS, PLATEN_MAX_PDF_BYTES). */
  limits: DocumentLimits;
  /** Launch the first browser when the handler module loads (RENDER_LAUNCH_AT_INIT=1), see `launchAtInit`. */
  launchAtInit: boolean;
}

/** What one document may come to; past any of them the render fails with its own code. */
export interface DocumentLimits {
  /** Pages of one PDF. Chromium is asked for at most this many plus one. */
  maxPages: number;
  /** Characters (UTF-16 code units) the template may write into the document body. */
  maxHtmlChars: number;
  /** Bytes of one PDF as Chromium prints it. */
  maxPdfBytes: number;
}

/** The defaults: far above any real invoice or report, far below what takes a render minutes. */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = {
  maxPages: 2_000,
  maxHtmlChars: 20_000_000,
  maxPdfBytes: 50_000_000,
};

/**
 * One browser per core, but never more than one per GiB: a warm single-process Chromium
 * with a page needs a few hundred MB and spikes on large documents.
 */
export function defaultBrowserCount(env: Environment = environment()): number {
  const memoryMb = positiveInt(env, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE") ?? totalmem() / 2 ** 20;
  return Math.max(1, Math.min(availableParallelism(), Math.floor(memoryMb / 1024)));
}

/** Reads the RENDER_* variables, failing fast with a message that says what to set. */
export function readRenderConfig(env: Environment = environment()): RendererConfig {
  return {
    browsers: positiveInt(env, "RENDER_BROWSERS") ?? defaultBrowserCount(env),
    recycleAfter: positiveInt(env, "RENDER_RECYCLE_AFTER") ?? 500,
    gcEvery: positiveInt(env, "RENDER_GC_EVERY") ?? 25,
    timeoutMs: durationMs(env, "RENDER_TIMEOUT_MS", "ms") ?? 30_000,
    chromiumPath: env.CHROMIUM_PATH || undefined,
    fontDir: env.RENDER_FONT_DIR || undefined,
    launchAtInit: flag(env, "RENDER_LAUNCH_AT_INIT") ?? false,
    limits: readDocumentLimits(env),
  };
}

/** PLATEN_MAX_PAGES, PLATEN_MAX_HTML_CHARS and PLATEN_MAX_PDF_BYTES over the defaults. */
export function readDocumentLimits(env: Environment = environment()): DocumentLimits {
  return {
    maxPages: positiveInt(env, "PLATEN_MAX_PAGES") ?? DEFAULT_DOCUMENT_LIMITS.maxPages,
    maxHtmlChars: positiveInt(env, "PLATEN_MAX_HTML_CHARS") ?? DEFAULT_DOCUMENT_LIMITS.maxHtmlChars,
    maxPdfBytes: positiveInt(env, "PLATEN_MAX_PDF_BYTES") ?? DEFAULT_DOCUMENT_LIMITS.maxPdfBytes,
  };
}
