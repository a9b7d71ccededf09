import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zxing from "@zxing/library";
import jsQR from "jsqr";

/**
 * Reading back the barcodes Platen prints, the way a scanner would: page 1 rasterized by poppler's pdftoppm
 * (independent of the Chromium that drew it), then decoded by jsqr (QR) or ZXing (linear and Data Matrix).
 */
export interface Raster {
  width: number;
  height: number;
  grey: Uint8ClampedArray;
}

/** A grey-scale raster of page 1 at `dpi` (300 gives a 0.35 mm QR module 4 pixels). */
export function rasterize(pdf: Uint8Array, dpi = 300): Raster {
  const dir = mkdtempSync(join(tmpdir(), "platen-raster-"));
  try {
    writeFileSync(join(dir, "in.pdf"), pdf);
    execFileSync("pdftoppm", ["-r", String(dpi), "-gray", "-f", "1", "-l", "1", "-singlefile", "in.pdf", "page"], {
      cwd: dir,
    });
    const pgm = readFileSync(join(dir, "page.pgm"));
    // P5\n<width> <height>\n255\n<bytes>
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString("latin1", 0, 40))!;
    const [width, height] = [Number(header[1]), Number(header[2])];
    return { width, height, grey: new Uint8ClampedArray(pgm.subarray(header[0].length)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// CommonJS: Node's ESM loader sees only its default export.
const {
  BinaryBitmap,
  CodaBarReader,
  Code128Reader,
  DataMatrixReader,
  DecodeHintType,
  EAN13Reader,
  HybridBinarizer,
  RGBLuminanceSource,
} = zxing;

const readers = {
  code128: () => new Code128Reader(),
  ean13: () => new EAN13Reader(),
  codabar: () => new CodaBarReader(),
  datamatrix: () => new DataMatrixReader(),
};

export type ZxingFormat = keyof typeof readers;

/**
 * ZXing's reading of the raster (throws when it finds nothing). GS1-128 reads as Code 128 with its leading FNC1
 * dropped: the AIs and their data remain, without parentheses.
 */
export function decodeWithZxing(raster: Raster, format: ZxingFormat): string {
  const source = new RGBLuminanceSource(raster.grey, raster.width, raster.height);
  const hints = new Map([[DecodeHintType.TRY_HARDER, true]]);
  return readers[format]()
    .decode(new BinaryBitmap(new HybridBinarizer(source)), hints)
    .getText();
}

/**
 * A linear code anywhere on a full page. ZXing reads a pixel row from the first start pattern it meets, so print
 * to the left of the symbol (a caption, a frame) can make every row fail; it is tried again on the page with
 * ever more of its left side cut off until one reading succeeds.
 */
export function decodeLinearOnPage(raster: Raster, format: ZxingFormat): string {
  let lastError: unknown;
  for (let tenth = 0; tenth <= 7; tenth++) {
    const left = Math.floor((raster.width * tenth) / 10);
    try {
      return decodeWithZxing(crop(raster, left, raster.width - left), format);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** Columns `left` to `left + width` of the raster. */
function crop(raster: Raster, left: number, width: number): Raster {
  if (left === 0 && width === raster.width) return raster;
  const grey = new Uint8ClampedArray(width * raster.height);
  for (let y = 0; y < raster.height; y++)
    grey.set(raster.grey.subarray(y * raster.width + left, y * raster.width + left + width), y * width);
  return { width, height: raster.height, grey };
}

/** The symbol's bounding box plus a white margin (ZXing's Data Matrix detector wants the symbol to fill the image). */
export function cropToSymbol(raster: Raster, margin = 24): Raster {
  let [left, top, right, bottom] = [raster.width, raster.height, 0, 0];
  for (let y = 0; y < raster.height; y++)
    for (let x = 0; x < raster.width; x++)
      if (raster.grey[y * raster.width + x]! < 128) {
        [left, top] = [Math.min(left, x), Math.min(top, y)];
        [right, bottom] = [Math.max(right, x), Math.max(bottom, y)];
      }
  const width = right - left + 1 + 2 * margin;
  const height = bottom - top + 1 + 2 * margin;
  const grey = new Uint8ClampedArray(width * height).fill(255);
  for (let y = top; y <= bottom; y++)
    grey.set(
      raster.grey.subarray(y * raster.width + left, y * raster.width + right + 1),
      (y - top + margin) * width + margin,
    );
  return { width, height, grey };
}

/** The QR code's text, or undefined when jsqr finds none. */
export function decodeQr(raster: Raster): string | undefined {
  // Plain stores, not two fill() calls a pixel: on a 300 dpi A4 page those took ~0.6 s, half of the decode.
  const rgba = new Uint8ClampedArray(raster.width * raster.height * 4);
  for (let i = 0, j = 0; i < raster.grey.length; i++, j += 4) {
    const grey = raster.grey[i]!;
    rgba[j] = grey;
    rgba[j + 1] = grey;
    rgba[j + 2] = grey;
    rgba[j + 3] = 255;
  }
  return jsQR(rgba, raster.width, raster.height)?.data;
}

/**
 * The bars of a Japan Post customer barcode somewhere on the page: the longest run, on any pixel row, of dark
 * segments of one width at one pitch. Every bar of the 4-state code crosses its middle (tracker) band, and no
 * other print on a page keeps a regular rhythm that long (Code 128's bars vary in width and spacing). The pitch
 * is compared with the chain's mean within 45 %: bars snap to device pixels, so at 300 dpi it varies
 * between 11 and 17 pixels.
 */
export function japanPostBars(raster: Raster): number {
  let best = 0;
  for (let y = 0; y < raster.height; y++) {
    const row = raster.grey.subarray(y * raster.width, (y + 1) * raster.width);
    const runs: { start: number; width: number }[] = [];
    for (let x = 0; x < row.length; x++) {
      if (row[x]! >= 128) continue;
      const start = x;
      while (x < row.length && row[x]! < 128) x++;
      runs.push({ start, width: x - start });
    }
    let first = 0;
    for (let i = 1; i < runs.length; i++) {
      const chain = i - first;
      const pitch = runs[i]!.start - runs[i - 1]!.start;
      const mean = chain > 1 ? (runs[i - 1]!.start - runs[first]!.start) / (chain - 1) : pitch;
      const regular = Math.abs(runs[i]!.width - runs[first]!.width) <= 2 && Math.abs(pitch - mean) <= mean * 0.45;
      // A broken rhythm starts again from the previous run: it may be the symbol's first bar, taken into a
      // chain of text that happened to have its width.
      if (!regular) first = Math.abs(runs[i]!.width - runs[i - 1]!.width) <= 2 ? i - 1 : i;
      best = Math.max(best, i - first + 1);
    }
  }
  return best;
}
