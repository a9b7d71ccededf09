import { PDFDocument } from "@cantoo/pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSearchMetadata } from "#shared/render/pdf-postprocess.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { extractPageTexts, makeBundle, pdfImageSizes, pdfObjectSubtypes, solidPng } from "./render-fixtures.ts";

// Real Chromium: the first launch on a fresh machine inflates the binary (~2 s).
const SLOW = 60_000;

const invoice = makeBundle(
  `<h1>{{ title }}</h1><p>{{ customer }} 様</p>
  <table><thead><tr><th>品名ヘッダー</th><th>金額</th></tr></thead>
  <tbody>{% for row in rows %}<tr><td>{{ row.name }}</td><td>{{ row.amount }}円</td></tr>{% endfor %}</tbody></table>`,
  { css: "body { font-family: 'Noto Sans JP'; } td, th { padding: 2mm; }" },
);

describe("renderer (real Chromium)", () => {
  let renderer: Renderer;
  beforeAll(() => {
    renderer = createRenderer({ browsers: 1, timeoutMs: 20_000 });
  });
  afterAll(() => renderer.close());

  it(
    "renders a one-page Japanese PDF with title, rf:params and real text",
    async () => {
      const { pdf, pageCount } = await renderer.renderPdf({
        bundle: invoice,
        bundleKey: "invoice@1",
        params: { title: "日本語の請求書", customer: "山田 太郎", rows: [{ name: "月額利用料", amount: "1,000" }] },
        title: "請求書 No.1",
        passthrough: { orderId: " A-1 ", total: 1000, nested: { x: 1 } },
      });
      expect(pageCount).toBe(1);
      const doc = await PDFDocument.load(pdf);
      expect(doc.getPageCount()).toBe(1);
      expect(doc.getTitle()).toBe("請求書 No.1");
      expect(await readSearchMetadata(pdf)).toEqual({ orderId: "A-1", total: "1000" });
      // Text, not pictures of text, and 日/月/金 as ideographs rather than Kangxi radicals.
      const [text] = await extractPageTexts(pdf);
      expect(text).toContain("日本語の請求書");
      expect(text).toContain("山田 太郎 様");
      expect(text).toContain("月額利用料");
      expect(text).toContain("金額");
      // Fonts embedded as TrueType subsets: no Type 3 glyph programs blowing up the size.
      const subtypes = await pdfObjectSubtypes(pdf);
      expect(subtypes).toContain("/CIDFontType2");
      expect(subtypes).not.toContain("/Type3");
      expect(pdf.length).toBeLessThan(60_000);
    },
    SLOW,
  );

  it(
    "breaks a 400-row table across pages and repeats the header row",
    async () => {
      const rows = Array.from({ length: 400 }, (_, i) => ({ name: `品目${i + 1}`, amount: String(i * 100) }));
      const { pdf, pageCount } = await renderer.renderPdf({
        bundle: invoice,
        bundleKey: "invoice@1",
        params: { title: "長い明細", customer: "顧客", rows },
        title: "long",
      });
      expect(pageCount).toBeGreaterThan(5);
      expect((await PDFDocument.load(pdf)).getPageCount()).toBe(pageCount);
      const texts = await extractPageTexts(pdf);
      for (const text of texts) expect(text).toContain("品名ヘッダー");
      expect(texts.at(-1)).toContain("品目400");
    },
    SLOW,
  );

  it(
    "prints a <script> in a param as text and never runs it",
    async () => {
      const bundle = makeBundle("<p>{{ name }}</p><p>{{ name | raw }}</p><p id=t>static</p>");
      const name = `<script>document.getElementById("t").textContent = "EXEC" + "UTED"</script>`;
      const { pdf } = await renderer.renderPdf({ bundle, bundleKey: "xss@1", params: { name }, title: "xss" });
      const [text] = await extractPageTexts(pdf);
      expect(text).toContain("<script>document.getElementById"); // escaped output shows as text
      expect(text).toContain("static"); // the raw copy is a real script element, inert with JS off
      expect(text).not.toContain("EXECUTED");
    },
    SLOW,
  );

  it(
    "loads the design's own assets from memory (img and CSS url())",
    async () => {
      const png = solidPng(40, 40, [200, 30, 30]);
      const withAsset = makeBundle(`<img src="assets/dot.png" width="40"><div class="bg">x</div>`, {
        css: ".bg { width: 20mm; height: 20mm; background: url(assets/bg.png); }",
        assets: {
          "assets/dot.png": { contentType: "image/png", body: png },
          "assets/bg.png": { contentType: "image/png", body: solidPng(10, 10, [0, 90, 200]) },
        },
      });
      const render = async (bundle: typeof withAsset) =>
        pdfImageSizes(
          (await renderer.renderPdf({ bundle, bundleKey: `${Math.random()}`, params: {}, title: "a" })).pdf,
        );
      expect(await render(withAsset)).toEqual(expect.arrayContaining(["40x40", "10x10"]));
      // Control: a path that is not in the bundle is refused (Chromium may draw its broken-image icon).
      const missing = makeBundle(`<img src="assets/other.png" width="40">`, { assets: withAsset.assets });
      expect(await render(missing)).not.toContain("40x40");
    },
    SLOW,
  );

  it(
    "honours page size and orientation from the manifest",
    async () => {
      const bundle = makeBundle("<p>横向き</p>", { page: { size: "A5", orientation: "landscape" } });
      const { pdf } = await renderer.renderPdf({ bundle, bundleKey: "a5l@1", params: {}, title: "a5" });
      const { width, height } = (await PDFDocument.load(pdf)).getPage(0).getSize();
      expect(Math.round((width / 72) * 25.4)).toBe(210);
      expect(Math.round((height / 72) * 25.4)).toBe(148);
    },
    SLOW,
  );

  it(
    "renders a 400 px wide PNG thumbnail of page 1",
    async () => {
      const png = await renderer.renderThumbnail({
        bundle: invoice,
        bundleKey: "invoice@1",
        params: { title: "サムネイル", rows: [] },
      });
      expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
      expect(png.readUInt32BE(16)).toBe(400); // IHDR width
      expect(png.readUInt32BE(20)).toBe(Math.round((400 * 297) / 210)); // A4 aspect
      // The next PDF is unaffected by the thumbnail's viewport and print emulation.
      const { pageCount } = await renderer.renderPdf({
        bundle: invoice,
        bundleKey: "invoice@1",
        params: {},
        title: "after",
      });
      expect(pageCount).toBe(1);
      expect(renderer.stats()).toMatchObject({ browsers: 1 });
    },
    SLOW,
  );
});
