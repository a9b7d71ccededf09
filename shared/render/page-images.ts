import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Browser, HTTPRequest, Page } from "puppeteer-core";
import { onePerBrowser } from "./per-browser.ts";

/**
 * Page images of a PDF, drawn by pdf.js (pdfjs-dist, Mozilla's PDF renderer) inside the
 * pool's Chromium: what a browser without a PDF viewer (a phone, a headless one) is shown,
 * and a preview's `?format=png`. The rasterizing page is a page of its own, with JavaScript
 * (pdf.js needs it) but no network: every request is answered from memory or aborted, and
 * the PDF it draws is one we rendered.
 */
const ORIGIN = "https://pdfjs.platen.invalid";

let sources: { library: string; worker: string } | undefined;

/** pdf.js's two files, read once (shipped beside the Chromium functions' bundle, infra/stack/platen-function.ts). */
function pdfjsSources(): { library: string; worker: string } {
  if (!sources) {
    const root = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"));
    sources = {
      library: readFileSync(join(root, "build/pdf.min.mjs"), "utf8"),
      worker: readFileSync(join(root, "build/pdf.worker.min.mjs"), "utf8"),
    };
  }
  return sources;
}

/** One rasterizing page per browser. */
const rasterizerOf = onePerBrowser(openRasterizer);

async function openRasterizer(browser: Browser): Promise<{ page: Page; setPdf(pdf: Buffer): void }> {
  const { library, worker } = pdfjsSources();
  const page = await browser.newPage();
  let pdf: Buffer = Buffer.alloc(0);
  await page.setRequestInterception(true);
  page.on("request", (request: HTTPRequest) => {
    if (request.isInterceptResolutionHandled()) return;
    const path = request.url().startsWith(`${ORIGIN}/`) ? request.url().slice(ORIGIN.length) : undefined;
    const answer = (contentType: string, body: string | Buffer) =>
      request.respond({ status: 200, contentType, headers: { "cache-control": "no-store" }, body });
    const done =
      path === "/"
        ? answer("text/html", "<!doctype html><meta charset=utf-8><body>")
        : path === "/pdf.mjs"
          ? answer("text/javascript", library)
          : path === "/pdf.worker.mjs"
            ? answer("text/javascript", worker)
            : path === "/document.pdf"
              ? answer("application/pdf", pdf)
              : request.abort("blockedbyclient");
    void done.catch(() => undefined);
  });
  await page.goto(`${ORIGIN}/`, { waitUntil: "load" });
  return {
    page,
    setPdf(next) {
      pdf = next;
    },
  };
}

/**
 * A page image is at most this many times as high as `widthPx`: a longer page (a 1 cm × 5 m one, say)
 * is drawn whole but narrower, so its canvas stays far inside Chromium's (32,767 px a side) and
 * its PNG small, instead of failing at 1,000 × 500,000 px.
 */
export const MAX_PAGE_IMAGE_ASPECT = 8;

/**
 * PNG of one page of a PDF, `widthPx` wide (white background), or narrower for a page over
 * MAX_PAGE_IMAGE_ASPECT times as long as wide; never under 1 px a side. The caller holds the browser
 * (pool.run).
 */
export async function rasterizePage(
  browser: Browser,
  pdf: Buffer,
  pageNumber: number,
  widthPx: number,
): Promise<Buffer> {
  const { page, setPdf } = await rasterizerOf(browser);
  setPdf(pdf);
  const base64 = await page.evaluate(
    async (n: number, width: number, maxAspect: number) => {
      // A string specifier: the page imports pdf.js from its own (intercepted) origin.
      const pdfjs = await import(`${location.origin}/pdf.mjs`);
      pdfjs.GlobalWorkerOptions.workerSrc = `${location.origin}/pdf.worker.mjs`;
      // One worker for the page's life: a new one per document loads and compiles pdf.js's
      // 1.4 MB worker script again, most of an image's time.
      const kept = window as unknown as { platenPdfWorker?: { destroy(): void } };
      kept.platenPdfWorker ??= new pdfjs.PDFWorker();
      const worker = kept.platenPdfWorker!;
      const doc = await pdfjs
        .getDocument({ url: `${location.origin}/document.pdf`, isEvalSupported: false, worker })
        .promise.catch((error: unknown) => {
          // A worker that failed a document is not trusted with the next one.
          worker.destroy();
          if (kept.platenPdfWorker === worker) kept.platenPdfWorker = undefined;
          throw error;
        });
      try {
        const pdfPage = await doc.getPage(n);
        const natural = pdfPage.getViewport({ scale: 1 });
        const scale = Math.min(width / natural.width, (width * maxAspect) / natural.height);
        const viewport = pdfPage.getViewport({ scale });
        const canvas = document.createElement("canvas");
        canvas.width = Math.max(1, Math.round(viewport.width));
        canvas.height = Math.max(1, Math.round(viewport.height));
        const context = canvas.getContext("2d")!;
        context.fillStyle = "#fff";
        context.fillRect(0, 0, canvas.width, canvas.height);
        await pdfPage.render({ canvasContext: context, viewport }).promise;
        return canvas.toDataURL("image/png").slice("data:image/png;base64,".length);
      } finally {
        await doc.destroy();
      }
    },
    pageNumber,
    widthPx,
    MAX_PAGE_IMAGE_ASPECT,
  );
  return Buffer.from(base64, "base64");
}
