import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { pdfInfo } from "../helpers/pdf-tools.ts";
import { makeBundle } from "./render-fixtures.ts";

/** design.json `metadata` and a request's `metadata` in the Info dictionary, read back with poppler's pdfinfo. */
let renderer: Renderer;
beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 30_000 });
});
afterAll(() => renderer.close());

const designed = (metadata?: Record<string, unknown>) => ({
  ...makeBundle("<p>本文</p>"),
  manifest: designManifestSchema.parse({ label: "t", parameters: [], ...(metadata && { metadata }) }),
});

describe("PDF metadata", () => {
  it("without any, the Title is the file name and no Author, Subject or Keywords are written", async () => {
    const { pdf } = await renderer.renderPdf({ bundle: designed(), bundleKey: "m0", params: {}, title: "請求書-0042" });
    const info = pdfInfo(pdf);
    expect(info.Title).toBe("請求書-0042");
    expect(info.Author).toBeUndefined();
    expect(info.Subject).toBeUndefined();
    expect(info.Keywords).toBeUndefined();
    expect(info.Producer).toMatch(/Skia/); // Chromium's own entries are kept
  });

  it("the design's metadata fills the Info dictionary; a request's overrides it field by field", async () => {
    const bundle = designed({
      title: "請求書",
      author: "株式会社サンプル",
      subject: "月次請求",
      keywords: ["請求書", "invoice"],
    });
    const fromDesign = pdfInfo(
      (await renderer.renderPdf({ bundle, bundleKey: "m1", params: {}, title: "file-name" })).pdf,
    );
    expect(fromDesign).toMatchObject({
      Title: "請求書",
      Author: "株式会社サンプル",
      Subject: "月次請求",
      Keywords: "請求書, invoice",
    });
    const overridden = pdfInfo(
      (
        await renderer.renderPdf({
          bundle,
          bundleKey: "m1",
          params: {},
          title: "file-name",
          metadata: { author: "山田 太郎", keywords: ["2026年11月"] },
        })
      ).pdf,
    );
    expect(overridden).toMatchObject({
      Title: "請求書",
      Author: "山田 太郎",
      Subject: "月次請求",
      Keywords: "2026年11月",
    });
  });

  it("a request's metadata alone sets the Title over the file name, and survives encryption", async () => {
    const { pdf } = await renderer.renderPdf({
      bundle: designed(),
      bundleKey: "m0",
      params: {},
      title: "file-name",
      metadata: { title: "Certificate 😀", subject: "(brackets) \\ back" },
      protection: { password: "pw", allowPrinting: true, allowCopying: true, allowModifying: true },
    });
    expect(pdfInfo(pdf, "pw")).toMatchObject({ Title: "Certificate 😀", Subject: "(brackets) \\ back" });
  });
});
