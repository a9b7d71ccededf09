import { BoundedCache, MiB, textBytes } from "#shared/bounded-cache.ts";
import { type BarcodeEncoders, barcodeEncodersFor, loadBarcodeEncoder } from "./barcode.ts";
import { Context, Liquid, type Template, toValueSync } from "liquidjs";
import { type DesignBundle, FILE_GLOBAL } from "#shared/designs/bundle-schema.ts";
import type { ComputedInvoice } from "#shared/einvoice/model.ts";
import { escapeHtml } from "#shared/html/html.ts";
import { registerPlatenFilters } from "./filters.ts";
import { BoundedEmitter, HtmlLimitReached } from "./html-emitter.ts";
import { pageCss, resolvePageBox } from "./page-box.ts";
import { readDocumentLimits } from "./render-config.ts";
import { RenderError } from "./render-error.ts";
import { previewFile, type TemplateFile } from "./template-file.ts";

/**
 * The fake origin design assets are served from (request interception answers it from
 * memory). `.invalid` can never resolve, so a leak past the interceptor goes nowhere.
 */
export const DESIGN_ORIGIN = "https://design.platen.invalid";

/** LiquidJS's DoS limits. They are cooperative; the browser side has a hard time-out. */
export const TEMPLATE_LIMITS = {
  /** Template source characters per parse. Real designs are a few KB. */
  parseLimit: 1_000_000,
  /** Upper bound of render time in ms; the per-render budget usually cuts it shorter. */
  renderLimitMs: 10_000,
  /** Characters/objects allocated by filters per render (params are at most 1 MB). */
  memoryLimit: 64_000_000,
} as const;

/**
 * Defence in depth beside request interception: the document itself refuses anything else.
 * No `base-uri`: the page is reused, and every `document.open()` of the next render then
 * breaks that directive ~20 times, each a console message Chromium logs and puppeteer
 * parses (measured: ~1 ms per render). It is not needed either: the document's base URL
 * comes from the first `<base href>`, which is ours, ahead of anything a template writes.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `img-src ${DESIGN_ORIGIN} data:`,
  `style-src ${DESIGN_ORIGIN} data: 'unsafe-inline'`,
  `font-src ${DESIGN_ORIGIN} data:`,
  `media-src ${DESIGN_ORIGIN} data:`,
  "script-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "connect-src 'none'",
  "form-action 'none'",
].join("; ");

/** Injected before the design's CSS so designs can override it. */
const BASE_CSS = [
  ":root { font-family: sans-serif; -webkit-print-color-adjust: exact; print-color-adjust: exact; }",
  // Chromium repeats header/footer groups on every page a table spans.
  "thead { display: table-header-group; } tfoot { display: table-footer-group; }",
  "tr, img, svg { break-inside: avoid; }",
].join("\n");

/**
 * The shared engine: output escaped unless `| raw`, unknown filters are errors, no
 * prototype access, and an empty in-memory (null-prototype) template map so
 * `include`/`render`/`layout` can never read the disk.
 */
export function createTemplateEngine(output: "html" | "json" = "html"): Liquid {
  return registerPlatenFilters(
    new Liquid({
      // A JSON mapping (einvoice.liquid) writes values with `| json`: HTML escaping would corrupt them.
      ...(output === "html" && { outputEscape: "escape" as const }),
      strictFilters: true,
      ownPropertyOnly: true,
      // What LiquidJS would resolve on Lambda (the runtime's ICU default), fixed: the same
      // month and weekday names (`%B`, `%A`) on every machine, and no Intl.DateTimeFormat
      // built at module load to ask for it (~15 ms of a cold start's CPU, ICU's date data).
      locale: "en-US",
      templates: Object.create(null) as Record<string, string>,
      parseLimit: TEMPLATE_LIMITS.parseLimit,
      renderLimit: TEMPLATE_LIMITS.renderLimitMs,
      memoryLimit: TEMPLATE_LIMITS.memoryLimit,
    }),
  );
}

interface CompiledBundle {
  templates: Template[];
  /** Everything between `<title>` and `<body>`: it only depends on the bundle. */
  styles: string;
  /** The encoders the template's `barcode` filters need, loaded before the render. */
  barcodes: BarcodeEncoders;
}

const engine = createTemplateEngine();
/**
 * Compiled templates by bundle key, least recently used out first (shared/bounded-cache.ts). Bounded
 * by bytes: a compiled template can hold far more than its source (a 1,000,000-character template of
 * `{{a}}` compiles to about 165 MB): 64 of them, the count alone allowed before, were 10 GB.
 */
const compiledByKey = new BoundedCache<string, CompiledBundle>({ maxBytes: 128 * MiB, maxEntries: 64 });

/** Measured with LiquidJS 10: each tag or output compiles to about 1 KB besides the source it keeps. */
const BYTES_PER_TAG = 1024;

/** What a compiled bundle keeps in memory: the template's source, about 1 KB per tag and output, the styles. */
function compiledBytes(template: string, styles: string): number {
  let tags = 0;
  for (let at = template.indexOf("{"); at !== -1; at = template.indexOf("{", at + 1)) {
    const next = template.charCodeAt(at + 1);
    if (next === 123 /* { */ || next === 37 /* % */) tags++;
  }
  return textBytes(template) + tags * BYTES_PER_TAG + textBytes(styles);
}

/**
 * The compiled-template cache key of a design version: the workspace is part of it, so
 * one tenant's compiled template can never be served for another's, whatever its ids.
 */
export const compiledBundleKey = (workspaceId: string, design: { designId: string; version: number }) =>
  `${workspaceId}/${design.designId}@${design.version}`;
const compiledByObject = new WeakMap<DesignBundle, CompiledBundle>();

export interface RenderHtmlOptions {
  title: string;
  /** Cache key of an immutable bundle version, e.g. `designId@version`; else cached per object. */
  bundleKey?: string;
  /** Render budget in ms (capped by TEMPLATE_LIMITS.renderLimitMs). */
  renderLimitMs?: number;
  /** Extra CSS after the @page rule (the thumbnail uses it). */
  extraCss?: string;
  /** Characters the template may write (default PLATEN_MAX_HTML_CHARS, read once). */
  maxHtmlChars?: number;
  /** The generated file the template sees as `file`; without one (previews, thumbnails), a placeholder. */
  file?: TemplateFile;
  /** The document's computed e-invoice, which the template sees as `einvoice` (shared/einvoice/README.md). */
  einvoice?: ComputedInvoice;
}

let defaultMaxHtmlChars: number | undefined;

/** PLATEN_MAX_HTML_CHARS, read on first use (callers that template ahead pass no limit). */
function configuredMaxHtmlChars(): number {
  defaultMaxHtmlChars ??= readDocumentLimits().maxHtmlChars;
  return defaultMaxHtmlChars;
}

/**
 * Renders a design to a complete HTML document: escaped title, `<base>` on the design
 * origin, CSP, base CSS, the design's CSS, the manifest's `@page` rule, Liquid output.
 * @throws RenderError TEMPLATE_FAILED for Liquid errors, RENDER_TIMEOUT when out of time,
 * HTML_TOO_LARGE past the HTML limit (or Liquid's memory limit).
 */
export async function renderHtml(
  bundle: DesignBundle,
  params: Record<string, unknown>,
  options: RenderHtmlOptions,
): Promise<string> {
  const compiled = compileBundle(bundle, options.bundleKey);
  if (compiled.barcodes !== "none") await loadBarcodeEncoder(compiled.barcodes);
  const renderLimit = Math.max(1, Math.min(options.renderLimitMs ?? Infinity, TEMPLATE_LIMITS.renderLimitMs));
  const maxChars = options.maxHtmlChars ?? configuredMaxHtmlChars();
  const started = performance.now();
  // engine.render's own steps, with an emitter that stops the render at the HTML limit
  // instead of building the whole string first.
  const emitter = new BoundedEmitter(maxChars);
  try {
    toValueSync(
      engine.renderer.renderTemplates(
        compiled.templates,
        new Context(
          params,
          engine.options,
          { renderLimit, sync: true, globals: templateGlobals(options) },
          {
            liquid: engine,
          },
        ),
        emitter,
      ),
    );
  } catch (cause) {
    throw templateError(cause, { maxChars, renderLimit, elapsed: performance.now() - started });
  }
  const body = emitter.buffer;
  const lang = bundle.manifest.lang ? ` lang="${escapeHtml(bundle.manifest.lang)}"` : "";
  const extra = options.extraCss ? `<style>${escapeStyle(options.extraCss)}</style>` : "";
  return (
    `<!doctype html><html${lang}><head><meta charset="utf-8"><base href="${DESIGN_ORIGIN}/">` +
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">` +
    `<title>${escapeHtml(options.title, "numeric")}</title>${compiled.styles}${extra}</head><body>${body}</body></html>`
  );
}

/**
 * Globals, not params: Liquid looks a name up in the params first, so a design published before `file` was
 * reserved (bundle-schema.ts) keeps reading its own `file` parameter instead of changing its output.
 */
const templateGlobals = (options: RenderHtmlOptions) => ({
  [FILE_GLOBAL]: options.file ?? previewFile(options.title),
  ...(options.einvoice && { [EINVOICE_GLOBAL]: options.einvoice }),
});

/** The template global holding the document's computed e-invoice. */
export const EINVOICE_GLOBAL = "einvoice";

/** Made on first use: designs without an e-invoice never pay for a second engine. */
let mappingEngine: Liquid | undefined;
/** Compiled e-invoice mappings by bundle key: small (a page of JSON), so a count bounds them. */
const mappingByKey = new BoundedCache<string, Template[]>({ maxBytes: 32 * MiB, maxEntries: 64 });

/**
 * Renders a design's e-invoice mapping (`einvoice.liquid`) with the request's params as sent: the
 * invoice model as JSON text (shared/einvoice/README.md#the-mapping). Values are not HTML-escaped.
 * @throws RenderError TEMPLATE_FAILED naming einvoice.liquid, RENDER_TIMEOUT, HTML_TOO_LARGE
 */
export function renderEinvoiceMapping(
  mapping: string,
  params: Record<string, unknown>,
  options: { bundleKey?: string; renderLimitMs?: number; maxChars?: number },
): string {
  mappingEngine ??= createTemplateEngine("json");
  const liquid = mappingEngine;
  let templates = options.bundleKey === undefined ? undefined : mappingByKey.get(options.bundleKey);
  if (!templates) {
    try {
      templates = liquid.parse(mapping);
    } catch (cause) {
      throw new RenderError("TEMPLATE_FAILED", `einvoice.liquid: ${(cause as Error).message}`, { cause });
    }
    if (options.bundleKey !== undefined) mappingByKey.set(options.bundleKey, templates, textBytes(mapping) * 4);
  }
  const renderLimit = Math.max(1, Math.min(options.renderLimitMs ?? Infinity, TEMPLATE_LIMITS.renderLimitMs));
  const maxChars = options.maxChars ?? configuredMaxHtmlChars();
  const emitter = new BoundedEmitter(maxChars);
  const started = performance.now();
  try {
    toValueSync(
      liquid.renderer.renderTemplates(
        templates,
        new Context(params, liquid.options, { renderLimit, sync: true }, { liquid }),
        emitter,
      ),
    );
  } catch (cause) {
    const error = templateError(cause, { maxChars, renderLimit, elapsed: performance.now() - started });
    if (error.code !== "TEMPLATE_FAILED") throw error;
    throw new RenderError("TEMPLATE_FAILED", `einvoice.liquid: ${(cause as Error).message}`, { cause });
  }
  return emitter.buffer;
}

/** Liquid's failure as the renderer reports it: out of time, too large, or a template error. */
function templateError(cause: unknown, at: { maxChars: number; renderLimit: number; elapsed: number }): RenderError {
  if (at.elapsed >= at.renderLimit)
    return new RenderError("RENDER_TIMEOUT", "the template did not finish in time", { cause });
  const original = (cause as { originalError?: unknown }).originalError ?? cause;
  if (original instanceof HtmlLimitReached) {
    return new RenderError("HTML_TOO_LARGE", `the template wrote more than ${at.maxChars} characters`, {
      cause,
      limit: at.maxChars,
    });
  }
  // Liquid's memory limit (ranges, filters building strings) guards the same resource, and
  // V8's longest string (a `capture` doubling itself) is the last resort.
  if (/memory alloc limit exceeded|Invalid string length/.test((cause as Error).message)) {
    return new RenderError("HTML_TOO_LARGE", "the template exceeded its memory limit", { cause, limit: at.maxChars });
  }
  return new RenderError("TEMPLATE_FAILED", `template error: ${(cause as Error).message}`, { cause });
}

function compileBundle(bundle: DesignBundle, key: string | undefined): CompiledBundle {
  const cached = key === undefined ? compiledByObject.get(bundle) : compiledByKey.get(key);
  if (cached) return cached;
  let templates: Template[];
  try {
    templates = engine.parse(bundle.template);
  } catch (cause) {
    throw new RenderError("TEMPLATE_FAILED", `template error: ${(cause as Error).message}`, { cause });
  }
  const styles =
    `<style>${BASE_CSS}</style><style>${escapeStyle(bundle.css)}</style>` +
    `<style>${pageCss(resolvePageBox(bundle.manifest.page))}</style>`;
  const compiled = { templates, styles, barcodes: barcodeEncodersFor(bundle.template) };
  if (key === undefined) compiledByObject.set(bundle, compiled);
  else compiledByKey.set(key, compiled, compiledBytes(bundle.template, styles));
  return compiled;
}

/** `</style` inside CSS would end the element early; `<\/style` means the same to CSS. */
function escapeStyle(css: string): string {
  return css.replace(/<\/(style)/gi, "<\\/$1");
}
