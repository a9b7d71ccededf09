import { type Environment, environment } from "#shared/config/settings.ts";
import type { DesignBundle, PdfMetadata } from "#shared/designs/bundle-schema.ts";
import type { ComputedInvoice } from "#shared/einvoice/model.ts";
import { BrowserPool, type PoolStats, type RunOptions } from "./browser-pool.ts";
import { openGuardedBrowser } from "./browser-slot.ts";
import { launchChromium } from "./chromium-launch.ts";
import { remainingMs } from "./deadline.ts";
import {
  cappedPageRanges,
  checkForcedBreaks,
  checkPageCount,
  checkPdfBytes,
  checkThumbnailPages,
  PRINT_BREAK_CHECK_FROM,
} from "./document-limits.ts";
import { takeEarlyChromium } from "./early-chromium.ts";
import { prepareFontEnv } from "./font-config.ts";
import { type PageBox, pdfOptions, printToPdfParams, resolvePageBox } from "./page-box.ts";
import { type GuardedPage, guardPage } from "./page-guard.ts";
import { onePerBrowser } from "./per-browser.ts";
import { documentInfo } from "./document-info.ts";
import { documentArchive, prepareDocument } from "./einvoice-document.ts";
import { postprocessPdf } from "./pdf-postprocess.ts";
import type { PdfArchiveOptions } from "./pdf-a-options.ts";
import type { PdfProtection } from "./pdf-protect.ts";
import { type DocumentLimits, type RendererConfig, readRenderConfig } from "./render-config.ts";
import { RenderError, toRenderError } from "./render-error.ts";
import { publishRenderEvent } from "./render-events.ts";
import { renderHtml } from "./template.ts";
import type { TemplateFile } from "./template-file.ts";

export type { DocumentLimits, RendererConfig } from "./render-config.ts";
export { RenderError, type RenderErrorCode } from "./render-error.ts";

/**
 * One document to render. `standard`, `attachments` and `facturX` (PdfArchiveOptions) make it PDF/A and embed
 * files (shared/render/README.md#pdfa-and-embedded-files); never together with `protection`.
 */
export interface RenderRequest extends PdfArchiveOptions {
  bundle: DesignBundle;
  /** Cache key of the immutable bundle version, e.g. `designId@version`. */
  bundleKey: string;
  params: Record<string, unknown>;
  /** The params as the client sent them, every key, for a design's e-invoice mapping (default `params`). */
  mappingParams?: Record<string, unknown>;
  /** The generated file, the template's `file` (shared/render/README.md#what-a-template-sees); else a placeholder. */
  file?: TemplateFile;
  /** `<title>`, and the PDF's Title unless `metadata` or the design's metadata names one. */
  title: string;
  /** shared/render/README.md#pdf-post-processing-and-rfparams: indexable values go to the PDF's `rf:params`. */
  passthrough?: Record<string, unknown>;
  /** Info entries over the design's `metadata`, field by field (shared/render/README.md#document-metadata). */
  metadata?: PdfMetadata;
  /** Encrypts the finished PDF (shared/render/README.md#password-protection). */
  protection?: PdfProtection;
  /** Overrides RENDER_TIMEOUT_MS for this render. */
  timeoutMs?: number;
  /** CSS after the design's own (a preview's mark). */
  extraCss?: string;
  /** Overrides the configured document limits for this render (e.g. a plan's page cap). */
  limits?: Partial<DocumentLimits>;
  /**
   * "request" (default): one budget from the call on, waiting for a browser included (a
   * sync answer's deadline). "browser": the wait for a browser is bounded by the budget
   * (BROWSER_BUSY) and the browser work then gets a whole budget of its own, so a
   * RENDER_TIMEOUT means the document is too slow, not that the renderer was busy.
   */
  budgetFrom?: "request" | "browser";
  /** Called when a browser is taken and the document's browser work starts. */
  onBrowser?: () => void;
  /**
   * Called after the template step, before a browser is taken, with the computed e-invoice (for a design
   * with one): a throw refuses the document there, nothing printed (a design's record fields, shared/records).
   */
  onPrepared?: (einvoice: ComputedInvoice | undefined) => void;
}

/** A document whose HTML is already rendered (see `renderHtml`): only Chromium and post-processing left. */
export interface PrintRequest
  extends Omit<RenderRequest, "params" | "mappingParams" | "file" | "bundleKey" | "extraCss"> {
  html: string;
}

export interface RenderedPdf {
  pdf: Buffer;
  pageCount: number;
  /** The e-invoice's XML, for a design with `einvoice` (the same bytes Factur-X embeds). */
  einvoiceXml?: Buffer;
}

export interface Renderer {
  /**
   * @throws RenderError RENDER_TIMEOUT, BROWSER_BUSY, TEMPLATE_FAILED, RENDER_FAILED, or a
   * document limit: HTML_TOO_LARGE, PAGE_LIMIT_EXCEEDED, PDF_TOO_LARGE; DOCUMENT_DATA_INVALID (with a
   * PdfArchiveError as its cause) for a printed PDF that cannot be made PDF/A.
   * @throws PdfArchiveError before any work, for archival options that contradict each other or `protection`
   * (check them at validation with `checkArchiveOptions`, pdf-a-options.ts)
   */
  renderPdf(req: RenderRequest): Promise<RenderedPdf>;
  /** The Chromium half of renderPdf, for callers that templated ahead. @throws RenderError as renderPdf, but no template errors */
  printPdf(req: PrintRequest): Promise<RenderedPdf>;
  /**
   * PNG of the first page, 400 px wide (its top left, when the page is over 4 times as long as wide or
   * the reverse). @throws RenderError, PAGE_LIMIT_EXCEEDED from an estimate of the pages
   */
  renderThumbnail(req: ThumbnailRequest): Promise<Buffer>;
  /** PNG of one page of a PDF we rendered, drawn by pdf.js in the pool's Chromium (page-images.ts). */
  pageImage(pdf: Buffer, pageNumber: number, widthPx?: number): Promise<Buffer>;
  /** Starts `count` browsers of the pool (all by default) now, e.g. in a Lambda init phase. */
  warmUp(count?: number): Promise<void>;
  close(): Promise<void>;
  stats(): PoolStats;
}

/** A thumbnail is a picture of page 1: nothing of the PDF's own (title, metadata, encryption) applies. */
export type ThumbnailRequest = Omit<
  RenderRequest,
  "title" | "file" | "passthrough" | "metadata" | "protection" | "extraCss" | keyof PdfArchiveOptions
>;

const THUMBNAIL_WIDTH_PX = 400;
/**
 * A thumbnail shows page 1 from its top left, at most four times as long as it is wide (or as wide
 * as long): a 1 cm × 5 m page is 400 × 1,600 px of its top, not 400 × 200,000 px of all of it.
 */
const THUMBNAIL_MAX_ASPECT = 4;
/** Page images: sharp on a phone's screen (2× of a 500 px column), ~100–200 KB a page. */
const PAGE_IMAGE_WIDTH_PX = 1000;

/** A renderer with its own pool; most callers want the process-wide `getRenderer()`. */
export function createRenderer(overrides: Partial<RendererConfig> = {}): Renderer {
  const config: RendererConfig = { ...readRenderConfig(), ...overrides };
  const pool = new BrowserPool({
    size: config.browsers,
    recycleAfter: config.recycleAfter,
    gcEvery: config.gcEvery,
    launch: async () => {
      const fontEnv = await prepareFontEnv(config.fontDir);
      const protocolTimeoutMs = config.timeoutMs + 10_000;
      // The browser spawned during the init phase, if there is one; every later one is launched.
      return openGuardedBrowser(
        () =>
          takeEarlyChromium(protocolTimeoutMs) ??
          launchChromium({ chromiumPath: config.chromiumPath, fontEnv, protocolTimeoutMs }),
      );
    },
  });
  return {
    renderPdf: (req) => renderPdf(pool, config, req),
    printPdf: (req) =>
      printPdf(pool, req, {
        deadlineAt: performance.now() + (req.timeoutMs ?? config.timeoutMs),
        ...budgetOf(config, req),
      }),
    renderThumbnail: (req) => renderThumbnail(pool, config, req),
    pageImage: (pdf, pageNumber, widthPx = PAGE_IMAGE_WIDTH_PX) =>
      pool.run(async (guarded) => {
        const { rasterizePage } = await import("./page-images.ts");
        return rasterizePage(guarded.page.browser(), pdf, pageNumber, widthPx);
      }, performance.now() + config.timeoutMs),
    warmUp: (count) => pool.warmUp(count),
    close: () => pool.close(),
    stats: () => pool.stats(),
  };
}

let shared: Renderer | undefined;

/**
 * The process-wide renderer, created on first use and kept warm across Lambda
 * invocations. `config` only counts on the first call.
 */
export function getRenderer(config?: Partial<RendererConfig>): Renderer {
  shared ??= createRenderer(config);
  return shared;
}

/**
 * Called at module load by the Chromium handlers: with RENDER_LAUNCH_AT_INIT (set on the
 * deployed functions) the first browser is ready during the Lambda init phase or the first
 * request's admission, instead of being launched after them (launch-at-init.ts spawned it
 * before the module graph loaded; this connects to it, or launches one). Only one: a second
 * browser would take CPU from the first render of a cold container; the pool starts the
 * others when they are needed. Failures only log: the first render relaunches.
 */
export function launchAtInit(env: Environment = environment()): void {
  if (!readRenderConfig(env).launchAtInit) return;
  getRenderer()
    .warmUp(1)
    .catch((error: unknown) =>
      console.error(JSON.stringify({ level: "warn", msg: "browser launch at init failed", error: String(error) })),
    );
}

/** Stats of the process-wide renderer, if one was created (local test hooks). */
export const sharedRendererStats = (): PoolStats | undefined => shared?.stats();

async function renderPdf(pool: BrowserPool, config: RendererConfig, req: RenderRequest): Promise<RenderedPdf> {
  const timeoutMs = req.timeoutMs ?? config.timeoutMs;
  const deadlineAt = performance.now() + timeoutMs;
  const { limits } = budgetOf(config, req);
  const { html, einvoice } = await prepareDocument(req.bundle, req.params, {
    title: req.title,
    bundleKey: req.bundleKey,
    renderLimitMs: timeoutMs,
    maxHtmlChars: limits.maxHtmlChars,
    ...(req.extraCss && { extraCss: req.extraCss }),
    ...(req.file && { file: req.file }),
    ...(req.mappingParams && { mappingParams: req.mappingParams }),
  });
  req.onPrepared?.(einvoice?.invoice);
  const archive = documentArchive(req.bundle, einvoice);
  const pdf = await printPdf(pool, { ...req, ...archive, html }, { deadlineAt, ...budgetOf(config, req) });
  return einvoice ? { ...pdf, einvoiceXml: einvoice.xml } : pdf;
}

const limitsOf = (config: RendererConfig, req: { limits?: Partial<DocumentLimits> }): DocumentLimits => ({
  ...config.limits,
  ...req.limits,
});

/** How a print is bounded: the deadline, the browser work's own budget, the document limits. */
interface PrintBounds {
  deadlineAt: number;
  run: RunOptions;
  limits: DocumentLimits;
}

const budgetOf = (config: RendererConfig, req: RenderRequest | PrintRequest): Omit<PrintBounds, "deadlineAt"> => ({
  run: {
    ...(req.budgetFrom === "browser" ? { workBudgetMs: req.timeoutMs ?? config.timeoutMs } : {}),
    onStart: req.onBrowser,
  },
  limits: limitsOf(config, req),
});

async function printPdf(pool: BrowserPool, req: PrintRequest, bounds: PrintBounds): Promise<RenderedPdf> {
  const { limits } = bounds;
  const { html } = req;
  const archive = archiveOptionsOf(req);
  // Refused before the browser is taken; the module is loaded only for a document that asks for PDF/A.
  if (archive) (await import("./pdf-a-options.ts")).checkArchiveOptions(archive, req.protection);
  const box = resolvePageBox(req.bundle.manifest.page);
  // Web fonts need page.pdf's wait for document.fonts; system fonts (fontconfig) do not.
  // Stylesheets a document links or imports may declare them too.
  const webFonts = /@font-face|@import|<link\b/i.test(html);
  const raw = await pool.run(
    async (guarded, deadlineAt) => {
      await loadDocument(guarded, req.bundle, html, deadlineAt);
      await checkForcedBreaks(guarded, html, limits, Math.max(limits.maxPages, PRINT_BREAK_CHECK_FROM));
      const pageRanges = cappedPageRanges(limits);
      const features = req.bundle.manifest.pdf;
      if (webFonts) return guarded.page.pdf({ ...pdfOptions(box, pageTimeout(deadlineAt), features), pageRanges });
      const { data } = await guarded.cdp.send("Page.printToPDF", { ...printToPdfParams(box, features), pageRanges });
      return Buffer.from(data, "base64");
    },
    bounds.deadlineAt,
    bounds.run,
  );
  checkPdfBytes(raw.length, limits);
  let pdf: RenderedPdf;
  try {
    pdf = await postprocessPdf(raw, {
      ...documentInfo(req.title, req.bundle.manifest.metadata, req.metadata),
      passthrough: req.passthrough,
      ...archive,
    });
  } catch (error) {
    // Deterministic (no browser, no network): the same document fails the same way on every retry.
    const why = error instanceof Error && error.name === "PdfArchiveError" ? error.message : undefined;
    throw toRenderError(
      error,
      "DOCUMENT_DATA_INVALID",
      why ?? "the title or passthrough could not be written into the PDF",
    );
  }
  checkPageCount(pdf.pageCount, limits);
  if (req.protection) {
    // Last, on the finished file: encryption covers what post-processing wrote, and a file
    // over its page limit is refused before paying for it.
    const { protectPdf } = await import("./pdf-protect.ts");
    try {
      pdf = { ...pdf, pdf: await protectPdf(pdf.pdf, req.protection) };
    } catch (error) {
      throw toRenderError(error, "RENDER_FAILED", "the PDF could not be encrypted");
    }
  }
  publishRenderEvent({ event: "pdf-printed", bytes: pdf.pdf.length });
  return pdf;
}

/** The request's archival options, undefined when it asks for none (today's path, nothing loaded). */
function archiveOptionsOf(req: PrintRequest): PdfArchiveOptions | undefined {
  if (req.standard === undefined && !req.attachments?.length && req.facturX === undefined) return undefined;
  return {
    ...(req.standard !== undefined && { standard: req.standard }),
    ...(req.attachments?.length && { attachments: req.attachments }),
    ...(req.facturX !== undefined && { facturX: req.facturX }),
  };
}

async function renderThumbnail(pool: BrowserPool, config: RendererConfig, req: ThumbnailRequest): Promise<Buffer> {
  const deadlineAt = performance.now() + (req.timeoutMs ?? config.timeoutMs);
  const limits = limitsOf(config, req);
  const box = resolvePageBox(req.bundle.manifest.page);
  const html = await thumbnailHtml(req.bundle, req.params, {
    title: req.bundle.manifest.label,
    bundleKey: req.bundleKey,
    renderLimitMs: remainingMs(deadlineAt),
    extraCss: thumbnailCss(box),
    maxHtmlChars: limits.maxHtmlChars,
  });
  return pool.run(async (guarded) => {
    // Not the print page: its frames are never begun, and a screenshot needs one.
    const screen = await screenPageOf(guarded.page.browser());
    const { page } = screen;
    const width = Math.round(box.widthPx);
    const height = Math.round(box.heightPx);
    // A screen-sized screenshot of print layout: page margins become html padding.
    await page.setViewport({ width, height });
    try {
      await loadDocument(screen, req.bundle, html, deadlineAt);
      // Publishing refuses a design whose sample document is over the page cap.
      await checkThumbnailPages(screen, html, box, limits);
      const clip = {
        width: Math.min(width, height * THUMBNAIL_MAX_ASPECT),
        height: Math.min(height, width * THUMBNAIL_MAX_ASPECT),
      };
      const scale = THUMBNAIL_WIDTH_PX / clip.width;
      const png = await page.screenshot({ type: "png", clip: { x: 0, y: 0, ...clip, scale } });
      return Buffer.from(png);
    } finally {
      // The page stays open for the next thumbnail; the document need not stay in memory.
      await page.setContent("").catch(() => undefined);
    }
  }, deadlineAt);
}

/**
 * A thumbnail shows what a document prints: for an e-invoice design, with the invoice its sample params make.
 * Params that make no valid invoice (a design without sampleParams) still get a picture, without `einvoice`:
 * publishing checks the invoice of the sample params itself.
 */
async function thumbnailHtml(
  bundle: DesignBundle,
  params: Record<string, unknown>,
  options: Parameters<typeof renderHtml>[2],
): Promise<string> {
  if (!bundle.manifest.einvoice) return renderHtml(bundle, params, options);
  try {
    return (await prepareDocument(bundle, params, options)).html;
  } catch (error) {
    const mapping =
      error instanceof RenderError &&
      (error.code === "EINVOICE_INVALID" || error.message.startsWith("einvoice.liquid"));
    if (!mapping) throw error;
    return renderHtml(bundle, params, options);
  }
}

/**
 * `load` covers images and stylesheets (served from memory); page.pdf itself waits for
 * `document.fonts.ready`. Never `networkidle`: it adds ~500 ms and there is no network.
 */
async function loadDocument(guarded: GuardedPage, bundle: DesignBundle, html: string, deadlineAt: number) {
  guarded.setAssets(bundle.assets);
  await guarded.page.setContent(html, { waitUntil: "load", timeout: pageTimeout(deadlineAt) });
}

/** puppeteer's own time-out, a little after ours so the pool's deadline (which kills) fires first. */
function pageTimeout(deadlineAt: number): number {
  return Math.max(1, remainingMs(deadlineAt)) + 1_000;
}

/** The page thumbnails are taken on, one per browser, locked down like the print page. */
const screenPageOf = onePerBrowser(async (browser) => guardPage(await browser.newPage()));

function thumbnailCss(box: PageBox): string {
  const { top, right, bottom, left } = box.margin;
  return `html { padding: ${top} ${right} ${bottom} ${left}; background: #fff; }`;
}
