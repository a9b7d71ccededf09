import { PDFDocument } from "@cantoo/pdf-lib";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { pdfOptions, resolvePageBox } from "#shared/render/page-box.ts";
import { appendUpdate, plainString, textString } from "#shared/render/pdf-increment.ts";
import { postprocessPdf, readSearchMetadata } from "#shared/render/pdf-postprocess.ts";
import { renderHtml } from "#shared/render/template.ts";
import { extractPageTexts, makeBundle } from "./render-fixtures.ts";

/** Raw Chromium output (no post-processing), as the renderer gets it. */
let browser: Browser;
async function chromiumPdf(template: string): Promise<Buffer> {
  const bundle = makeBundle(template);
  const page = await browser.newPage();
  try {
    await page.setContent(await renderHtml(bundle, {}, { title: "raw" }), { waitUntil: "load" });
    return Buffer.from(await page.pdf(pdfOptions(resolvePageBox(bundle.manifest.page), 30_000)));
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  browser = await launchChromium({ fontEnv: await prepareFontEnv(), protocolTimeoutMs: 30_000 });
});
afterAll(async () => {
  await browser?.close();
});

describe("post-processing as an incremental update", () => {
  it("appends to Chromium's bytes: Title, rf:params and the page count, readable by pdf-lib and pdf.js", async () => {
    const raw = await chromiumPdf(
      `<p>日本語の請求書</p><p style="break-before: page">2</p><p style="break-before: page">3</p>`,
    );
    const updated = appendUpdate(raw, {
      Title: textString("請求書 (2026) \\ 〆"),
      "rf:params": plainString("orderId=A-1&total=1200"),
    });
    expect(updated).toBeDefined();
    expect(updated!.pageCount).toBe(3);
    expect(updated!.pdf.subarray(0, raw.length).equals(raw)).toBe(true);
    const doc = await PDFDocument.load(updated!.pdf, { updateMetadata: false });
    expect([doc.getTitle(), doc.getPageCount(), doc.getProducer(), doc.getCreator()]).toEqual([
      "請求書 (2026) \\ 〆",
      3,
      expect.stringContaining("Skia"),
      "Chromium",
    ]);
    expect(await readSearchMetadata(updated!.pdf)).toEqual({ orderId: "A-1", total: "1200" });
    expect((await extractPageTexts(updated!.pdf))[0]).toContain("日本語の請求書");
  }, 60_000);

  it("repairs the ToUnicode map (Kangxi radicals) so 日 and 月 extract as ideographs", async () => {
    const raw = await chromiumPdf("<p>日月金一人</p>");
    const { pdf } = await postprocessPdf(raw, { title: "t" });
    expect(pdf.subarray(0, raw.length).equals(raw)).toBe(true); // the incremental path, not a rewrite
    expect((await extractPageTexts(pdf))[0]).toContain("日月金一人");
  }, 60_000);

  it("leaves PDFs it does not recognise to pdf-lib (e.g. cross-reference streams)", async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    doc.addPage();
    const other = Buffer.from(await doc.save({ useObjectStreams: true }));
    expect(appendUpdate(other, { Title: textString("x") })).toBeUndefined();
    const { pdf, pageCount } = await postprocessPdf(other, { title: "fallback", passthrough: { a: "b" } });
    expect(pageCount).toBe(2);
    expect((await PDFDocument.load(pdf)).getTitle()).toBe("fallback");
    expect(await readSearchMetadata(pdf)).toEqual({ a: "b" });
  });

  it("refuses a literal value that would need escaping", () => {
    expect(() => plainString("a(b)")).toThrow();
    expect(plainString("a%28b%29").text).toBe("(a%28b%29)");
  });
});
