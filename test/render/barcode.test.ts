import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zxing from "@zxing/library";
import jsQR from "jsqr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { barcodeSvg, loadBarcodeEncoder } from "#shared/render/barcode.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { renderHtml } from "#shared/render/template.ts";
import { makeBundle } from "./render-fixtures.ts";

/**
 * The `barcode` filter, end to end: each symbology rendered by the real renderer to a PDF,
 * rasterized by pdftoppm, and decoded (QR with jsqr, the others with ZXing). What is
 * decoded must be what the template encoded.
 */
let renderer: Renderer;
const scratch = mkdtempSync(join(tmpdir(), "platen-barcode-"));

beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 20_000 });
});
afterAll(async () => {
  await renderer.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A grey-scale raster of page 1 at 300 dpi. */
function rasterize(pdf: Buffer, name: string): { width: number; height: number; grey: Uint8ClampedArray } {
  const file = join(scratch, `${name}.pdf`);
  writeFileSync(file, pdf);
  execFileSync("pdftoppm", ["-r", "300", "-gray", "-singlefile", file, join(scratch, name)]);
  const pgm = readFileSync(join(scratch, `${name}.pgm`));
  // P5\n<width> <height>\n255\n<bytes>
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString("latin1", 0, 40))!;
  const [width, height] = [Number(header[1]), Number(header[2])];
  return { width, height, grey: new Uint8ClampedArray(pgm.subarray(header[0].length)) };
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

function decodeWithZxing(raster: ReturnType<typeof rasterize>, format: keyof typeof readers): string {
  const source = new RGBLuminanceSource(raster.grey, raster.width, raster.height);
  const hints = new Map([[DecodeHintType.TRY_HARDER, true]]);
  return readers[format]()
    .decode(new BinaryBitmap(new HybridBinarizer(source)), hints)
    .getText();
}

/** The symbol's bounding box plus a white margin (ZXing's Data Matrix detector wants the symbol to fill the image). */
function cropToSymbol(raster: ReturnType<typeof rasterize>, margin = 24): ReturnType<typeof rasterize> {
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

function decodeQr(raster: ReturnType<typeof rasterize>): string | undefined {
  const rgba = new Uint8ClampedArray(raster.width * raster.height * 4);
  for (let i = 0; i < raster.grey.length; i++)
    rgba.fill(raster.grey[i]!, i * 4, i * 4 + 3).fill(255, i * 4 + 3, i * 4 + 4);
  return jsQR(rgba, raster.width, raster.height)?.data;
}

async function renderBarcode(value: string, filterArgs: string): Promise<ReturnType<typeof rasterize>> {
  const bundle = makeBundle(`<div style="padding: 10mm">{{ v | barcode: ${filterArgs} }}</div>`, {
    page: { size: "A6" },
  });
  const name = `b${Math.random().toString(36).slice(2)}`;
  const { pdf } = await renderer.renderPdf({ bundle, bundleKey: name, params: { v: value }, title: name });
  return rasterize(pdf, name);
}

describe("barcode filter: rendered, rasterized and decoded", () => {
  const linear: [string, string, string, keyof typeof readers, string?][] = [
    ["code128", "TRK-2026-000123", '"code128"', "code128"],
    // ZXing reads GS1-128 as Code 128 with its FNC1 as the GS1 prefix ]C1 dropped: the AIs and data remain.
    ["gs1-128", "(00)149012345000000010", '"gs1-128"', "code128", "00149012345000000010"],
    ["ean13", "4901234567894", '"ean13"', "ean13"],
    ["jan", "4569951116179", '"jan"', "ean13"],
    ["codabar (NW-7)", "A0123456789B", '"codabar"', "codabar", "A0123456789B"],
  ];

  it.each(linear)("%s", async (_name, value, args, format, expected) => {
    const raster = await renderBarcode(value, args);
    expect(decodeWithZxing(raster, format)).toBe(expected ?? value);
  });

  it("qrcode with an error-correction level, carrying a URL", async () => {
    const url = "https://platen.example/file/AbCdEfGhIjKlMnOp/QrStUvWxYz012345";
    const raster = await renderBarcode(url, '"qrcode", eclevel: "M"');
    expect(decodeQr(raster)).toBe(url);
  });

  it("qrcode with Japanese text", async () => {
    const text = "請求書 INV-0042 株式会社サンプル";
    const raster = await renderBarcode(text, '"qrcode"');
    expect(decodeQr(raster)).toBe(text);
  });

  it("datamatrix", async () => {
    const raster = await renderBarcode("PLATEN-DM-42", '"datamatrix", module: 0.6');
    expect(decodeWithZxing(cropToSymbol(raster), "datamatrix")).toBe("PLATEN-DM-42");
  });

  it("japanpost: the 4-state customer barcode, with its start and stop bars", async () => {
    const raster = await renderBarcode("1130021-4-5-6", '"japanpost"');
    // Count the bars on the row through the middle of the symbol's tracker band.
    const rows = [...Array(raster.height).keys()].filter((y) =>
      raster.grey.subarray(y * raster.width, (y + 1) * raster.width).some((p) => p < 128),
    );
    const middle = rows[Math.floor(rows.length / 2)]!;
    const line = raster.grey.subarray(middle * raster.width, (middle + 1) * raster.width);
    let bars = 0;
    for (let x = 1; x < line.length; x++) if (line[x]! < 128 && line[x - 1]! >= 128) bars++;
    // Start (2) + 7 postcode digits, address digits and CC4 fill to 20 characters (3 bars each) + check + stop (2).
    expect(bars).toBe(67);
  });
});

describe("barcode filter: options and bad data", () => {
  beforeAll(() => loadBarcodeEncoder());

  it("writes inline SVG with a physical size, a text alternative and nothing fetched", () => {
    const svg = barcodeSvg("https://x.test/a?b=1&c=<2>", "qrcode", { module: 0.5 });
    expect(svg).toMatch(
      /^<svg width="[\d.]+mm" height="[\d.]+mm" role="img" aria-label="https:\/\/x.test\/a\?b=1&#38;c=&#60;2&#62;"/,
    );
    expect(svg).not.toMatch(/href|url\(|<image|<script/i);
  });

  it("module width, height, text and quiet zone change the symbol", () => {
    const size = (svg: string) => /width="([\d.]+)mm" height="([\d.]+)mm"/.exec(svg)!.slice(1).map(Number);
    const [w1, h1] = size(barcodeSvg("12345678", "code128", { height: 10, text: false, quietzone: false }));
    const [w2, h2] = size(
      barcodeSvg("12345678", "code128", { height: 20, module: 0.66, text: false, quietzone: false }),
    );
    expect(h1).toBeCloseTo(10, 0); // whole points: within 0.35 mm
    expect(h2).toBeCloseTo(20, 0);
    expect(w2! / w1!).toBeCloseTo(2, 1);
    const [w3] = size(barcodeSvg("12345678", "code128", { height: 10, text: false }));
    expect(w3! - w1!).toBeCloseTo(2 * 10 * 0.33, 1); // 10 modules each side
    expect(barcodeSvg("12345678", "code128", { text: true })).not.toBe(
      barcodeSvg("12345678", "code128", { text: false }),
    );
  });

  it("nil or an empty value writes nothing", () => {
    expect(barcodeSvg(undefined, "qrcode", {})).toBe("");
    expect(barcodeSvg("", "code128", {})).toBe("");
  });

  it.each([
    ["ean13", "4901234567890", /barcode "ean13" cannot encode "4901234567890": Incorrect EAN-13 check digit/],
    ["ean13", "49012345ABCDE", /barcode "ean13" cannot encode "49012345ABCDE"/],
    ["codabar", "A12X34B", /barcode "codabar" cannot encode "A12X34B"/],
    ["japanpost", "〒abc", /barcode "japanpost" cannot encode "〒abc": Japan Post must contain only digits/],
    ["aztec-ish", "x", /unknown symbology "aztec-ish" \(one of code128, gs1-128, ean13/],
  ])("%s refuses %s, naming the value and the symbology", (symbology, value, message) => {
    expect(() => barcodeSvg(value, symbology, {})).toThrow(message);
  });

  it("a template with bad data fails with TEMPLATE_FAILED naming both", async () => {
    const bundle = makeBundle('{{ jan | barcode: "jan" }}');
    await expect(renderHtml(bundle, { jan: "4901234567890" }, { title: "t" })).rejects.toMatchObject({
      code: "TEMPLATE_FAILED",
      message: expect.stringMatching(/barcode "jan" cannot encode "4901234567890": Incorrect EAN-13 check digit/),
    });
  });
});
