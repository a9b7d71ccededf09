import type { RenderOptions } from "bwip-js/generic";
import { BoundedCache, MiB, textBytes } from "#shared/bounded-cache.ts";
import { escapeHtml } from "#shared/html/html.ts";
import type { QrLevel } from "./qr-code.ts";

/**
 * The `barcode` Liquid filter: `{{ value | barcode: "qrcode", eclevel: "M" }}` writes the
 * symbol as inline SVG (vector, sharp in print, nothing fetched): QR codes drawn by the `qrcode`
 * package (qr-code.ts), every other symbology by bwip-js.
 *
 * The encoders are loaded only for templates that use the filter (`loadBarcodeEncoder`, awaited
 * by renderHtml before a sync render), and bwip-js only for a template that names another
 * symbology than `qrcode` (or names it through a variable): importing bwip-js costs tens of ms,
 * which no other document should pay on a cold start. Only the symbologies below are loaded
 * (barcode-encoders.ts).
 */

/** A symbology as templates name it → bwip-js's encoder, its defaults and the quiet zone it needs (modules). */
interface Symbology {
  bcid: string;
  /** Human-readable text under the bars by default. */
  text: boolean;
  /** Two-dimensional: square modules, no bar height. */
  matrix?: boolean;
  /** bwip-js draws this symbology's modules this many units wide (2 for its matrix codes; 1 by default). */
  unitsPerModule?: number;
  /** Quiet zone on each side, in modules (top and bottom too for matrix codes). */
  quiet: number;
  /** Default module width in mm. */
  module: number;
  /** The symbol's own physical size (Japan Post's customer barcode): no module scaling. */
  fixedSize?: boolean;
  extra?: Partial<RenderOptions>;
}

const SYMBOLOGIES: Record<string, Symbology> = {
  code128: { bcid: "code128", text: true, quiet: 10, module: 0.33 },
  "gs1-128": { bcid: "gs1-128", text: true, quiet: 10, module: 0.33 },
  ean13: { bcid: "ean13", text: true, quiet: 11, module: 0.33 },
  ean8: { bcid: "ean8", text: true, quiet: 7, module: 0.33 },
  /** JAN is EAN-13 (or EAN-8 for an 8-digit short code, chosen by the value's length). */
  jan: { bcid: "ean13", text: true, quiet: 11, module: 0.33 },
  upca: { bcid: "upca", text: true, quiet: 9, module: 0.33 },
  itf14: { bcid: "itf14", text: true, quiet: 10, module: 0.5, extra: { showborder: false } },
  code39: { bcid: "code39", text: true, quiet: 10, module: 0.33 },
  /** NW-7, used by Japanese carriers: start/stop characters A–D included in the value. */
  codabar: { bcid: "rationalizedCodabar", text: true, quiet: 10, module: 0.33 },
  nw7: { bcid: "rationalizedCodabar", text: true, quiet: 10, module: 0.33 },
  qrcode: { bcid: "qrcode", text: false, matrix: true, quiet: 4, module: 0.5 },
  datamatrix: { bcid: "datamatrix", text: false, matrix: true, unitsPerModule: 2, quiet: 1, module: 0.5 },
  pdf417: { bcid: "pdf417", text: false, matrix: true, quiet: 2, module: 0.33 },
  /** Japan Post's customer barcode (カスタマバーコード): postcode + address digits. */
  japanpost: { bcid: "japanpost", text: false, quiet: 2, module: 0.6, fixedSize: true },
};

export const BARCODE_SYMBOLOGIES = Object.keys(SYMBOLOGIES);

/** bwip-js draws at 72 units per inch: one unit per module at scale 1. */
const MM_PER_UNIT = 25.4 / 72;
/** Bar height of linear codes in mm unless `height` says otherwise. */
const DEFAULT_HEIGHT_MM = 12;
/** Longest value encoded (the largest QR code holds 7,089 digits). */
const MAX_VALUE_CHARS = 7_089;

type Encoder = { toSVG(options: RenderOptions): string };
let encoder: Encoder | undefined;
let qr: typeof import("./qr-code.ts") | undefined;
let loadingQr: Promise<void> | undefined;
let loadingAll: Promise<void> | undefined;

/**
 * Loads the encoders once per process (a template that uses `barcode` awaits this before rendering):
 * `qr` the QR encoder only, `all` bwip-js too.
 */
export function loadBarcodeEncoder(which: BarcodeEncoders = "all"): Promise<void> {
  loadingQr ??= import("./qr-code.ts").then((module) => {
    qr = module;
  });
  if (which === "qr") return loadingQr;
  loadingAll ??= Promise.all([
    loadingQr,
    import("./barcode-encoders.ts").then((module) => {
      encoder = module;
    }),
  ]).then(() => undefined);
  return loadingAll;
}

/** Which encoders a template needs: none, the QR encoder, or bwip-js too. */
export type BarcodeEncoders = "none" | "qr" | "all";

const FILTER_USE = /\|\s*barcode\b(\s*:\s*(["'])([^"']*)\2)?/g;

/**
 * The encoders a template's source needs (checked once per compiled template): bwip-js unless every use
 * of the filter names `qrcode` literally.
 */
export function barcodeEncodersFor(template: string): BarcodeEncoders {
  let found: BarcodeEncoders = "none";
  for (const use of template.matchAll(FILTER_USE)) {
    if (use[3]?.toLowerCase() !== "qrcode") return "all";
    found = "qr";
  }
  return found;
}

/** What the filter receives: the symbology, then LiquidJS's keyword arguments as `[name, value]` pairs. */
export function barcodeFilter(value: unknown, symbology?: unknown, ...options: unknown[]): string {
  return barcodeSvg(value, symbology, Object.fromEntries(options.filter(isPair)));
}

const isPair = (option: unknown): option is [string, unknown] =>
  Array.isArray(option) && option.length === 2 && typeof option[0] === "string";

/** Drawn SVGs by symbology, value and options, least recently used out first (shared/bounded-cache.ts). */
const cache = new BoundedCache<string, string>({ maxBytes: 8 * MiB, maxEntries: 256 });

/**
 * The SVG for `value` in `symbology`. Options: `height` (mm, linear codes), `module` (module
 * width in mm), `text` (human-readable line on/off), `quietzone` (true: the symbology's own,
 * false: none, or a number of modules), `eclevel` (QR: L, M, Q, H).
 * Nil or an empty string writes nothing.
 * @throws Error naming the symbology and the value when the value cannot be encoded
 * (the renderer reports it as TEMPLATE_FAILED).
 */
export function barcodeSvg(value: unknown, symbology: unknown, options: Record<string, unknown>): string {
  if (value === null || value === undefined || value === "") return "";
  const name = String(symbology ?? "").toLowerCase();
  const spec = SYMBOLOGIES[name];
  if (!spec)
    throw new Error(`barcode: unknown symbology "${String(symbology)}" (one of ${BARCODE_SYMBOLOGIES.join(", ")})`);
  const text = String(value);
  const key = `${name}\u0000${text}\u0000${JSON.stringify(options)}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const svg = drawSvg(spec, name, text, options);
  cache.set(key, svg, textBytes(key) + textBytes(svg));
  return svg;
}

function drawSvg(spec: Symbology, name: string, text: string, options: Record<string, unknown>): string {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  if (text.length > MAX_VALUE_CHARS)
    throw new Error(`barcode "${name}" cannot encode "${shown}": longer than ${MAX_VALUE_CHARS} characters`);
  const moduleMm = positive(options.module, "module", name) ?? spec.module;
  const quiet = quietModules(options.quietzone, spec.quiet);
  if (spec.bcid === "qrcode") {
    if (!qr) throw new Error("barcode: the encoder was not loaded (loadBarcodeEncoder)");
    const level = qrLevel(options.eclevel);
    return encoded(name, shown, () => sized(qr!.qrSvg(text, level, quiet), moduleMm / MM_PER_UNIT, text));
  }
  if (!encoder) throw new Error("barcode: the encoder was not loaded (loadBarcodeEncoder)");
  // bwip-js's units: a module of a matrix code is 2 of them, so its scale and quiet zone are in halves.
  const units = spec.unitsPerModule ?? 1;
  const scale = spec.fixedSize ? 1 : moduleMm / MM_PER_UNIT / units;
  const heightMm = positive(options.height, "height", name) ?? DEFAULT_HEIGHT_MM;
  const bcid = name === "jan" && /^\d{7,8}$/.test(text) ? "ean8" : spec.bcid;
  const render: RenderOptions = {
    bcid,
    text,
    scale: 1,
    includetext: options.text === undefined ? spec.text : options.text === true || options.text === "true",
    paddingwidth: quiet * units,
    paddingheight: spec.matrix ? quiet * units : 0,
    ...(spec.matrix || spec.fixedSize ? {} : { height: heightMm / scale }),
    ...spec.extra,
  };
  return encoded(name, shown, () => sized(encoder!.toSVG(render), scale, text));
}

/** Runs an encoder, naming the symbology and the value in what it throws. */
function encoded(name: string, shown: string, draw: () => string): string {
  try {
    return draw();
  } catch (error) {
    const reason = String((error as Error).message ?? error).replace(/^bwipp\.\w+#\d+:\s*/, "");
    throw new Error(`barcode "${name}" cannot encode "${shown}": ${reason}`);
  }
}

function qrLevel(option: unknown): QrLevel {
  if (option === undefined) return "M";
  const level = String(option).toUpperCase();
  if (level === "L" || level === "M" || level === "Q" || level === "H") return level;
  throw new Error(`barcode "qrcode": eclevel must be L, M, Q or H`);
}

/** bwip-js writes only a viewBox: give the symbol its physical size in mm, and a text alternative. */
function sized(svg: string, scale: number, text: string): string {
  const box = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg);
  if (!box) return svg;
  const mm = (units: string) => `${+(Number(units) * MM_PER_UNIT * scale).toFixed(3)}mm`;
  const label = escapeHtml(text, "numeric");
  return svg
    .replace(/<svg /, `<svg width="${mm(box[1]!)}" height="${mm(box[2]!)}" role="img" aria-label="${label}" `)
    .replace(/^<\?xml[^>]*>\s*/, "")
    .trim();
}

function quietModules(option: unknown, own: number): number {
  if (option === undefined || option === true || option === "true") return own;
  if (option === false || option === "false") return 0;
  const n = Number(option);
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new Error(`barcode: quietzone must be true, false or 0–100`);
  return n;
}

function positive(option: unknown, label: string, name: string): number | undefined {
  if (option === undefined) return undefined;
  const n = Number(option);
  if (!Number.isFinite(n) || n <= 0 || n > 1000)
    throw new Error(`barcode "${name}": ${label} must be a positive number of mm`);
  return n;
}
