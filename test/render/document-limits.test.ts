import { PDFDocument } from "@cantoo/pdf-lib";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "#shared/render/chromium-launch.ts";
import { countForcedBreaks, countForcedBreaksInPage } from "#shared/render/document-limits.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { type GuardedPage, guardPage } from "#shared/render/page-guard.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { DESIGN_ORIGIN } from "#shared/render/template.ts";
import { makeBundle } from "./render-fixtures.ts";

const SLOW = 120_000;

/** `n` blocks, each ending its page: the shape that makes Chromium's pagination quadratic. */
const breaks = makeBundle('{% for i in (1..n) %}<div class="pg">{{ i }}</div>{% endfor %}', {
  css: ".pg { break-after: page; }",
});
/** Pages by overflow alone (no forced break): one block `n` A4 pages tall. */
const tall = makeBundle('<div style="height: {{ n | times: 297 }}mm">tall</div>');
/** `n` times `chunk` in the body: 100,000 × 1,000 characters is 100 MB of HTML. */
const flood = makeBundle("{% for i in (1..n) %}{{ chunk }}{% endfor %}");

const render = (r: Renderer, bundle: ReturnType<typeof makeBundle>, params: Record<string, unknown>, key: string) =>
  r.renderPdf({ bundle, bundleKey: key, params, title: key });

describe("per-document limits (real Chromium)", () => {
  let renderer: Renderer;

  beforeAll(() => {
    renderer = createRenderer({
      browsers: 1,
      timeoutMs: 60_000,
      limits: { maxPages: 20, maxHtmlChars: 20_000_000, maxPdfBytes: 50_000_000 },
    });
  });

  afterAll(async () => {
    await renderer?.close();
  });

  it(
    "renders a document of exactly the page cap; one page more is PAGE_LIMIT_EXCEEDED, by forced breaks or by overflow",
    async () => {
      expect((await render(renderer, breaks, { n: 20 }, "breaks@1")).pageCount).toBe(20);
      await expect(render(renderer, breaks, { n: 21 }, "breaks@1")).rejects.toMatchObject({
        name: "RenderError",
        code: "PAGE_LIMIT_EXCEEDED",
        limit: 20,
      });
      // No forced break to count: the print asks for 21 pages and gets all of them.
      expect((await render(renderer, tall, { n: 10 }, "tall@1")).pageCount).toBeLessThanOrEqual(20);
      await expect(render(renderer, tall, { n: 500 }, "tall@1")).rejects.toMatchObject({
        code: "PAGE_LIMIT_EXCEEDED",
        limit: 20,
      });
    },
    SLOW,
  );

  it(
    "refuses 50,000 page breaks before printing (default cap 2,000) and the browser serves the next render",
    async () => {
      const defaults = createRenderer({ browsers: 1, timeoutMs: 60_000 });
      try {
        const started = performance.now();
        await expect(render(defaults, breaks, { n: 50_000 }, "breaks@1")).rejects.toMatchObject({
          code: "PAGE_LIMIT_EXCEEDED",
          limit: 2_000,
        });
        // Paginating it takes minutes on this machine; the element count takes seconds.
        expect(performance.now() - started).toBeLessThan(30_000);
        expect((await render(defaults, breaks, { n: 3 }, "breaks@1")).pageCount).toBe(3);
        expect(defaults.stats()).toMatchObject({ browsers: 1, busy: 0 });
      } finally {
        await defaults.close();
      }
    },
    SLOW,
  );

  it(
    "stops a template that emits 100 MB of HTML at the HTML limit, before Chromium sees it",
    async () => {
      const rendersBefore = renderer.stats().renders;
      const started = performance.now();
      const error = await render(renderer, flood, { n: 100_000, chunk: "x".repeat(1_000) }, "flood@1").catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: "RenderError", code: "HTML_TOO_LARGE", limit: 20_000_000 });
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(renderer.stats().renders).toBe(rendersBefore); // Chromium never got it
    },
    SLOW,
  );

  it("maps Liquid's memory limit to HTML_TOO_LARGE too", async () => {
    await expect(
      render(renderer, makeBundle("{% for i in (1..100000000) %}{% endfor %}"), {}, "range@1"),
    ).rejects.toMatchObject({ code: "HTML_TOO_LARGE" });
  });

  it(
    "refuses a PDF over the PDF size limit",
    async () => {
      const small = createRenderer({
        browsers: 1,
        timeoutMs: 60_000,
        limits: { maxPages: 2_000, maxHtmlChars: 20_000_000, maxPdfBytes: 20_000 },
      });
      try {
        expect((await render(small, breaks, { n: 1 }, "breaks@1")).pdf.length).toBeLessThan(20_000);
        await expect(render(small, breaks, { n: 60 }, "breaks@1")).rejects.toMatchObject({
          code: "PDF_TOO_LARGE",
          limit: 20_000,
        });
      } finally {
        await small.close();
      }
    },
    SLOW,
  );

  it(
    "a thumbnail (publish time) refuses a sample document over the cap, by forced breaks or by its height",
    async () => {
      await expect(
        renderer.renderThumbnail({ bundle: breaks, bundleKey: "breaks@1", params: { n: 21 } }),
      ).rejects.toMatchObject({ code: "PAGE_LIMIT_EXCEEDED" });
      await expect(
        renderer.renderThumbnail({ bundle: tall, bundleKey: "tall@1", params: { n: 40 } }),
      ).rejects.toMatchObject({ code: "PAGE_LIMIT_EXCEEDED" });
      const png = await renderer.renderThumbnail({ bundle: tall, bundleKey: "tall@1", params: { n: 3 } });
      expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    },
    SLOW,
  );
});

/** `n` elements `<tag class="x">`. */
const many = (n: number, tag = "div") =>
  Array.from({ length: n }, (_, i) => `<${tag} class="x">${i}</${tag}>`).join("");

describe("the count of forced breaks, before printing (a locked-down page, real Chromium)", () => {
  let browser: Browser;
  let guarded: GuardedPage;

  beforeAll(async () => {
    browser = await launchChromium({ fontEnv: await prepareFontEnv(), protocolTimeoutMs: 60_000 });
    guarded = await guardPage(await browser.newPage());
    guarded.setAssets({ "breaks.css": { contentType: "text/css", body: Buffer.from(".x { break-before: page }") } });
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
  });

  // Each case: the document, the forced breaks counted, the pages it prints, and whether the count in the
  // page (fast) gave it or the DOM snapshot had to.
  const cases = [
    ["a class with break-before", `<style>.x { break-before: page }</style>${many(30)}`, 30, 30, "page"],
    [
      "page-break-after: always (the legacy name)",
      `<style>.x { page-break-after: always }</style>${many(30)}`,
      30,
      30,
      "page",
    ],
    ["inline style attributes", many(12).replaceAll('class="x"', 'style="break-after: page"'), 12, 12, "page"],
    ["only under @media print", `<style>@media print { .x { break-before: page } }</style>${many(30)}`, 30, 30, "page"],
    ["in a nested rule", `<style>body { & .x { break-before: page } }</style>${many(30)}`, 30, 30, "page"],
    [
      "inside a display: none block (no box, no page)",
      `<style>.x { break-before: page }</style><div style="display: none">${many(30)}</div>`,
      0,
      1,
      "page",
    ],
    [
      "on ::before",
      `<style>.x::before { content: ""; display: block; break-before: page }</style>${many(30)}`,
      60,
      30,
      "snapshot",
    ],
    [
      "on :after (the one-colon form), under @media print",
      `<style>@media print { .x:after { content: ""; display: block; break-after: page } }</style>${many(30)}`,
      60,
      30,
      "snapshot",
    ],
    [
      "in a linked style sheet (the design's own asset, which the page may not read)",
      `<link rel="stylesheet" href="${DESIGN_ORIGIN}/breaks.css">${many(30)}`,
      30,
      30,
      "snapshot",
    ],
    [
      "in a closed shadow root",
      `<div><template shadowrootmode="closed"><style>p { break-before: page }</style>${many(30, "p")}</template></div>`,
      30,
      30,
      "snapshot",
    ],
    [
      "with elements named after the DOM methods the count calls",
      `<img name="querySelectorAll"><img name="styleSheets"><form><input name="getClientRects"></form><style>.x { break-before: page }</style>${many(30)}`,
      30,
      31,
      "page",
    ],
    ["none", many(30), 0, 1, "page"],
  ] as const;
  it.each(cases.map(([name, html, counted, pages, by]) => ({ name, html, counted, pages, by })))(
    "$name: $counted counted (by the $by), $pages pages printed",
    async ({ html, counted, pages, by }) => {
      await guarded.page.setContent(html, { waitUntil: "load" });
      expect(await countForcedBreaksInPage(guarded, html)).toBe(by === "page" ? counted : undefined);
      expect(await countForcedBreaks(guarded, html)).toBe(counted);
      const pdf = await guarded.page.pdf({ format: "A4" });
      expect((await PDFDocument.load(pdf, { updateMetadata: false })).getPageCount()).toBe(pages);
    },
  );
});
