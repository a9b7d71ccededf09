import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { barcodeEncodersFor, barcodeSvg, loadBarcodeEncoder } from "#shared/render/barcode.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { renderHtml } from "#shared/render/template.ts";
import {
  cropToSymbol,
  decodeLinearOnPage,
  decodeQr,
  decodeWithZxing,
  japanPostBars,
  type Raster,
  rasterize,
  type ZxingFormat,
} from "../helpers/barcode-decode.ts";
import { makeBundle } from "./render-fixtures.ts";

/**
 * The `barcode` filter, end to end: each symbology rendered by the real renderer to a PDF,
 * rasterized by pdftoppm, and decoded (QR with jsqr, the others with ZXing). What is
 * decoded must be what the template encoded.
 */
let renderer: Renderer;

beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 20_000 });
});
afterAll(() => renderer.close());

async function renderBarcode(value: string, filterArgs: string): Promise<Raster> {
  const bundle = makeBundle(`<div style="padding: 10mm">{{ v | barcode: ${filterArgs} }}</div>`, {
    page: { size: "A6" },
  });
  const name = `b${Math.random().toString(36).slice(2)}`;
  const { pdf } = await renderer.renderPdf({ bundle, bundleKey: name, params: { v: value }, title: name });
  return rasterize(pdf);
}

describe("barcode filter: rendered, rasterized and decoded", () => {
  const linear: [string, string, string, ZxingFormat, string?][] = [
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
    expect(japanPostBars(raster)).toBe(67); // the page-wide search the sample tests use finds the same
  });
});

describe("the sample designs' barcodes, read off page 1", () => {
  const sample = (name: string) => loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples", name));
  const url = "http://localhost:3000/file/AbCdEfGhIjKlMnOp/QrStUvWxYz012345";
  const file = { id: "QrStUvWxYz012345", name: "sample", share: { url }, preview: false };
  const print = async (name: string, withFile = true) => {
    const bundle = await sample(name);
    const { pdf } = await renderer.renderPdf({
      bundle,
      bundleKey: `${name}@barcodes`,
      params: bundle.manifest.sampleParams ?? {},
      title: name,
      ...(withFile && { file }),
    });
    return rasterize(pdf);
  };

  it.each(["invoice-ja", "certificate-en"])("%s: the QR code is the file's share URL", async (name) => {
    expect(decodeQr(await print(name))).toBe(url);
  });

  it("a preview's QR code is the placeholder that says it is one", async () => {
    expect(decodeQr(await print("certificate-en", false))).toBe("https://example.invalid/preview");
  });

  it("shipping-label: the SSCC as GS1-128 and the Japan Post customer barcode", async () => {
    const raster = await print("shipping-label");
    expect(decodeLinearOnPage(raster, "code128")).toBe("00049123450000011824");
    expect(japanPostBars(raster)).toBe(67);
  });

  it("shipping-label: an SSCC with a wrong check digit fails the document with TEMPLATE_FAILED", async () => {
    const bundle = await sample("shipping-label");
    await expect(
      renderer.renderPdf({
        bundle,
        bundleKey: "shipping-label@barcodes",
        params: { ...bundle.manifest.sampleParams, sscc: "049123450000011825" },
        title: "label",
        file,
      }),
    ).rejects.toMatchObject({
      code: "TEMPLATE_FAILED",
      message: expect.stringContaining('barcode "gs1-128" cannot encode "(00)049123450000011825"'),
    });
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

  const mmSize = (svg: string) => /width="([\d.]+)mm" height="([\d.]+)mm"/.exec(svg)!.slice(1).map(Number);

  it.each([
    // "hi": a version 1 QR code (21 modules) and a 10 × 10 Data Matrix.
    { symbology: "qrcode", options: { module: 0.5 }, mm: (21 + 2 * 4) * 0.5 },
    { symbology: "qrcode", options: { module: 0.35 }, mm: (21 + 2 * 4) * 0.35 },
    { symbology: "qrcode", options: { module: 0.5, quietzone: false }, mm: 21 * 0.5 },
    { symbology: "qrcode", options: { module: 1, quietzone: 2 }, mm: 21 + 2 * 2 },
    { symbology: "datamatrix", options: { module: 0.5 }, mm: (10 + 2 * 1) * 0.5 },
    { symbology: "datamatrix", options: { module: 1, quietzone: false }, mm: 10 },
  ])(
    "a $symbology module is `module` mm and its quiet zone counts modules: $options → $mm mm",
    ({ symbology, options, mm }) => {
      const [width, height] = mmSize(barcodeSvg("hi", symbology, options));
      expect(width).toBeCloseTo(mm, 3);
      expect(height).toBeCloseTo(mm, 3);
    },
  );

  it("eclevel picks the QR code's error correction (any case); anything but L, M, Q or H is refused", () => {
    const url = "https://example.com/f/Zx8Kq2mN4pR7sT1v?k=abcdefgh";
    const side = (eclevel: string) => mmSize(barcodeSvg(url, "qrcode", { eclevel, quietzone: false }))[0]!;
    expect(side("L")).toBeLessThan(side("H"));
    expect(side("q")).toBe(side("Q"));
    expect(barcodeSvg(url, "qrcode", {})).toBe(barcodeSvg(url, "qrcode", { eclevel: "M" }));
    expect(() => barcodeSvg(url, "qrcode", { eclevel: "X" })).toThrow(/barcode "qrcode": eclevel must be L, M, Q or H/);
  });

  it("a value too long for the largest QR code at its level is refused, naming it", () => {
    expect(() => barcodeSvg("あ".repeat(1_300), "qrcode", { eclevel: "H" })).toThrow(
      /barcode "qrcode" cannot encode "あ{40}…": .*too big/,
    );
    expect(barcodeSvg("7".repeat(7_089), "qrcode", { eclevel: "L" })).toMatch(/^<svg /);
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

describe("which encoders a template loads", () => {
  it.each([
    { template: "<p>{{ total }}</p>", encoders: "none" },
    { template: '{{ url | barcode: "qrcode", eclevel: "M" }}', encoders: "qr" },
    { template: "{{ url | barcode: 'QRCode' }}", encoders: "qr" },
    { template: '{{ a | barcode: "qrcode" }} {{ b |barcode:"qrcode" }}', encoders: "qr" },
    { template: '{{ a | barcode: "qrcode" }} {{ b | barcode: "code128" }}', encoders: "all" },
    { template: "{{ a | barcode: kind }}", encoders: "all" },
    { template: "{{ a | barcode }}", encoders: "all" },
  ])("$template → $encoders", ({ template, encoders }) => {
    expect(barcodeEncodersFor(template)).toBe(encoders);
  });
});
