/**
 * Measures a warm one-page Japanese invoice (the invoice-ja sample) through the renderer
 * against the bare floor (setContent + pdf on a plain page, same fonts, no guard, no
 * post-processing). Run: `npx tsx test/render/measure-render.ts [iterations]`.
 * Not wired into package.json on purpose: it is a manual check, not a test.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadBundleFromDir } from "#shared/designs/load-bundle.ts";
import { launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { pdfOptions, resolvePageBox } from "#shared/render/page-box.ts";
import { createRenderer } from "#shared/render/renderer.ts";
import { renderHtml } from "#shared/render/template.ts";

const iterations = Number(process.argv[2] ?? 40);
const bundle = await loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja"));
const params = bundle.manifest.sampleParams ?? {};

const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;

async function time(label: string, once: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await once(); // warm-up: caches, JIT, fontconfig
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  console.log(`${label}: p50 ${p50(samples).toFixed(1)} ms over ${iterations}`);
  return p50(samples);
}

const renderer = createRenderer({ browsers: 1 });
let size = 0;
const full = await time("renderer.renderPdf (template + guard + pdf + post-process)", async () => {
  const out = await renderer.renderPdf({ bundle, bundleKey: "invoice-ja@1", params, title: "請求書", passthrough: { id: "INV-1" } });
  size = out.pdf.length;
});
console.log(`  PDF size ${size} bytes`);
await writeFile(join(import.meta.dirname, "measure-invoice.pdf.tmp"), (await renderer.renderPdf({ bundle, bundleKey: "invoice-ja@1", params, title: "請求書" })).pdf);
await renderer.close();

const browser = await launchChromium({ fontEnv: await prepareFontEnv(), protocolTimeoutMs: 30_000 });
const page = await browser.newPage();
const box = resolvePageBox(bundle.manifest.page);
const floor = await time("floor (renderHtml + setContent + pdf, default tagged)", async () => {
  await page.setContent(await renderHtml(bundle, params, { title: "請求書", bundleKey: "invoice-ja@1" }), { waitUntil: "load" });
  await page.pdf({ width: box.width, height: box.height, margin: box.margin, printBackground: true });
});
const untagged = await time("floor, untagged", async () => {
  await page.setContent(await renderHtml(bundle, params, { title: "請求書", bundleKey: "invoice-ja@1" }), { waitUntil: "load" });
  await page.pdf(pdfOptions(box, 30_000));
});
await browser.close();
console.log(`renderer / floor = ${(full / floor).toFixed(2)}; renderer / untagged floor = ${(full / untagged).toFixed(2)}`);
