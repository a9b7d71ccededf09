import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_LENGTH_MM } from "#shared/designs/page-size.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { makeBundle } from "./render-fixtures.ts";

/**
 * No page design.json accepts makes the print or the thumbnail fail: the smallest
 * and largest custom pages (1 cm, 5 m a side) and the longest and widest of them. A thumbnail is
 * 400 px wide and shows the page's top left at most 4 times as long as wide (it was 400 × 198,926 px
 * for a 1 cm × 5 m page, and never finished for `1px × 99999in`). Their page images (pdf.js in the
 * page, which vitest's transform cannot run in-process) are checked over HTTP:
 * test/integration/design-page-size.test.ts.
 */

// Real Chromium: the first launch on a fresh machine inflates the binary (~2 s).
const SLOW = 60_000;

const NO_MARGIN = { top: "0mm", right: "0mm", bottom: "0mm", left: "0mm" };
const min = `${PAGE_LENGTH_MM.min}mm`;
const max = `${PAGE_LENGTH_MM.max}mm`;

/** Width and height of a PNG (its IHDR). */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

const PAGES: [string, Record<string, unknown>, { thumb: [number, number] }][] = [
  ["the largest page, 5 m × 5 m", { width: max, height: max }, { thumb: [400, 400] }],
  [
    "the smallest page, 1 cm × 1 cm",
    { width: min, height: min, margin: { top: "1mm", right: "1mm", bottom: "1mm", left: "1mm" } },
    { thumb: [400, 400] },
  ],
  // Its top: 1 cm × 4 cm of it.
  ["the longest page, 1 cm × 5 m", { width: min, height: max, margin: NO_MARGIN }, { thumb: [400, 1600] }],
  ["the widest page, 5 m × 1 cm", { width: max, height: min, margin: NO_MARGIN }, { thumb: [400, 100] }],
];

describe("page sizes at the schema's bounds (real Chromium)", () => {
  let renderer: Renderer;
  beforeAll(() => {
    renderer = createRenderer({ browsers: 1, timeoutMs: 20_000 });
  });
  afterAll(() => renderer.close());

  for (const [name, page, expected] of PAGES) {
    it(
      `${name}: prints, and its thumbnail is a bounded image`,
      async () => {
        const bundle = makeBundle("<p style='margin:0'>Hello</p>", { page });
        const thumbnail = await renderer.renderThumbnail({ bundle, bundleKey: `extreme/${name}`, params: {} });
        expect(pngSize(thumbnail)).toEqual({ width: expected.thumb[0], height: expected.thumb[1] });
        const { pdf, pageCount } = await renderer.renderPdf({
          bundle,
          bundleKey: `extreme/${name}`,
          params: {},
          title: name,
        });
        expect(pageCount).toBeGreaterThanOrEqual(1);
        expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
      },
      SLOW,
    );
  }
});
