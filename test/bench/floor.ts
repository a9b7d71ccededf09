import type { Browser, Page } from "puppeteer-core";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { browserProcess, launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { pdfOptions, resolvePageBox } from "#shared/render/page-box.ts";
import { newId } from "#shared/ids.ts";
import { renderHtml } from "#shared/render/template.ts";
import type { TemplateFile } from "#shared/render/template-file.ts";

/**
 * Every floor document is a new file, as every generated one is: a design printing its own share URL
 * (the invoice's QR code) encodes a new symbol each time, and the barcode cache must not spare the
 * floor work the service does.
 */
function newFile(): TemplateFile {
  const [requestId, fileId] = [newId(), newId()];
  return {
    id: fileId,
    name: "floor",
    share: { url: `http://localhost:3000/file/${requestId}/${fileId}` },
    preview: false,
  };
}

/**
 * The Chromium floor (test/bench/README.md#warm-phases): the same binary and fonts, warm browsers with one
 * page each, Liquid templating included, `setContent` + `pdf` and nothing else (no
 * interception, no post-processing, no storage, no HTTP).
 */
export async function startFloor(browsers: number) {
  const fontEnv = await prepareFontEnv();
  const slots: { browser: Browser; page: Page; busy: boolean }[] = [];
  for (let i = 0; i < browsers; i++) {
    const browser = await launchChromium({ fontEnv, protocolTimeoutMs: 60_000 });
    slots.push({ browser, page: await browser.newPage(), busy: false });
  }
  const waiters: (() => void)[] = [];
  const acquire = async () => {
    for (;;) {
      const free = slots.find((s) => !s.busy);
      if (free) {
        free.busy = true;
        return free;
      }
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return {
    async render(bundle: DesignBundle, params: Record<string, unknown>): Promise<Uint8Array> {
      const html = await renderHtml(bundle, params, { bundleKey: "floor", title: "floor", file: newFile() });
      const slot = await acquire();
      try {
        await slot.page.setContent(html, { waitUntil: "load" });
        return await slot.page.pdf(pdfOptions(resolvePageBox(bundle.manifest.page), 60_000));
      } finally {
        slot.busy = false;
        waiters.shift()?.();
      }
    },
    /** `render` with its parts timed: templating, `setContent` (parse, style, layout) and `pdf` (print). */
    async renderTimed(
      bundle: DesignBundle,
      params: Record<string, unknown>,
    ): Promise<{ pdf: Uint8Array; templateMs: number; layoutMs: number; printMs: number }> {
      const t0 = performance.now();
      const html = await renderHtml(bundle, params, { bundleKey: "floor", title: "floor", file: newFile() });
      const slot = await acquire();
      try {
        const t1 = performance.now();
        await slot.page.setContent(html, { waitUntil: "load" });
        const t2 = performance.now();
        const pdf = await slot.page.pdf(pdfOptions(resolvePageBox(bundle.manifest.page), 60_000));
        return { pdf, templateMs: t1 - t0, layoutMs: t2 - t1, printMs: performance.now() - t2 };
      } finally {
        slot.busy = false;
        waiters.shift()?.();
      }
    },
    pids: () => slots.map((s) => browserProcess(s.browser)?.pid).filter((p): p is number => p !== undefined),
    close: () => Promise.all(slots.map((s) => s.browser.close())),
  };
}
