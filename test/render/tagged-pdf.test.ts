import { PDFBool, PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from "@cantoo/pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { makeBundle } from "./render-fixtures.ts";

/**
 * A design's `pdf: {tagged, outline}` switches: Chromium's structure tree and outline, kept
 * through Platen's post-processing (title, `rf:params` search metadata).
 */
let renderer: Renderer;
beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 30_000 });
});
afterAll(() => renderer.close());

const template = `<h1>請求書</h1><p>本文</p><h2>明細</h2><table><tr><th>品名</th></tr><tr><td>保守</td></tr></table>
<h2>お振込先</h2><p>銀行</p><img alt="社印" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">`;

function bundleWith(manifest: Record<string, unknown>) {
  const bundle = makeBundle(template);
  return {
    ...bundle,
    manifest: designManifestSchema.parse({ label: "t", parameters: [], ...manifest }),
  };
}

/** Titles of the outline's entries, depth first. */
function outlineTitles(doc: PDFDocument): string[] {
  const titles: string[] = [];
  const walk = (item: PDFDict | undefined) => {
    for (let node = item; node; node = node.lookupMaybe(PDFName.of("Next"), PDFDict)) {
      const title = node.lookup(PDFName.of("Title"));
      if (title instanceof PDFString || title instanceof PDFHexString) titles.push(title.decodeText());
      walk(node.lookupMaybe(PDFName.of("First"), PDFDict));
    }
  };
  walk(doc.catalog.lookupMaybe(PDFName.of("Outlines"), PDFDict)?.lookupMaybe(PDFName.of("First"), PDFDict));
  return titles;
}

describe("tagged PDF and outline (design.json pdf switches)", () => {
  it("a tagged design keeps its structure tree, /Marked true, /Lang and an outline of its headings after post-processing", async () => {
    const bundle = bundleWith({ lang: "ja", pdf: { tagged: true, outline: true } });
    const { pdf } = await renderer.renderPdf({
      bundle,
      bundleKey: `tagged-${Math.random()}`,
      params: {},
      title: "請求書 INV-1",
      passthrough: { orderId: "A-42" },
    });
    const doc = await PDFDocument.load(pdf);
    expect(doc.catalog.lookupMaybe(PDFName.of("StructTreeRoot"), PDFDict), "structure tree").toBeDefined();
    const markInfo = doc.catalog.lookupMaybe(PDFName.of("MarkInfo"), PDFDict);
    expect(markInfo?.lookup(PDFName.of("Marked"))).toBe(PDFBool.True);
    const lang = doc.catalog.lookup(PDFName.of("Lang"));
    expect(lang instanceof PDFString || lang instanceof PDFHexString ? lang.decodeText() : undefined).toBe("ja");
    expect(outlineTitles(doc)).toEqual(["請求書", "明細", "お振込先"]);
    expect(doc.getTitle()).toBe("請求書 INV-1"); // post-processing ran
    expect(pdf.toString("latin1")).toContain("rf:params");
  });

  it("is off by default: no structure tree, no outline", async () => {
    const { pdf } = await renderer.renderPdf({
      bundle: bundleWith({}),
      bundleKey: `plain-${Math.random()}`,
      params: {},
      title: "plain",
    });
    const doc = await PDFDocument.load(pdf);
    expect(doc.catalog.lookupMaybe(PDFName.of("StructTreeRoot"), PDFDict)).toBeUndefined();
    expect(outlineTitles(doc)).toEqual([]);
  });

  it("refuses a language that is not a language tag, and unknown pdf switches", () => {
    expect(() => designManifestSchema.parse({ label: "t", parameters: [], lang: 'ja" onload="x' })).toThrow(
      /language tag/,
    );
    expect(() =>
      designManifestSchema.parse({ label: "t", parameters: [], pdf: { tagged: true, encrypt: 1 } }),
    ).toThrow();
  });
});
