/**
 * Measures a warm one-page Japanese invoice (the invoice-ja sample) through the renderer
 * against the bare floor: renderHtml + setContent + pdf on an unguarded page of a browser
 * with the same fonts, no post-processing. The two alternate sample by sample, so load
 * from other work on the machine hits both alike.
 * Run: `npx tsx test/render/measure-render.ts [iterations]`. Not in package.json on
 * purpose: a manual check, not a test.
 */
import { join } from "node:path";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { resolvePageBox } from "#shared/render/page-box.ts";
import { postprocessPdf } from "#shared/render/pdf-postprocess.ts";
import { createRenderer } from "#shared/render/renderer.ts";
import { renderHtml } from "#shared/render/template.ts";

const iterations = Number(process.argv[2] ?? 50);
const bundle = await loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja"));
const params = bundle.manifest.sampleParams ?? {};
const box = resolvePageBox(bundle.manifest.page);

const renderer = createRenderer({ browsers: 1 });
const browser = await launchChromium({ fontEnv: await prepareFontEnv(), protocolTimeoutMs: 30_000 });
const page = await browser.newPage();

const cases: Record<string, () => Promise<unknown>> = {
  "renderer.renderPdf": () =>
    renderer.renderPdf({ bundle, bundleKey: "invoice-ja@1", params, title: "請求書", passthrough: { id: "INV-1" } }),
  "floor (setContent + pdf, puppeteer defaults)": async () => {
    await page.setContent(await renderHtml(bundle, params, { title: "請求書", bundleKey: "invoice-ja@1" }), {
      waitUntil: "load",
    });
    return page.pdf({ width: box.width, height: box.height, margin: box.margin, printBackground: true });
  },
};
const raw = Buffer.from((await cases["floor (setContent + pdf, puppeteer defaults)"]?.()) as Uint8Array);
cases["post-processing alone (pdf-lib)"] = () => postprocessPdf(raw, { title: "請求書", passthrough: { id: "INV-1" } });

const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
for (let i = -5; i < iterations; i++) {
  for (const [name, run] of Object.entries(cases)) {
    const started = performance.now();
    await run();
    if (i >= 0) samples.get(name)?.push(performance.now() - started); // first 5 rounds warm up
  }
}
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
for (const [name, values] of samples) console.log(`${name}: p50 ${p50(values).toFixed(1)} ms (n=${values.length})`);
const { pdf } = await renderer.renderPdf({ bundle, bundleKey: "invoice-ja@1", params, title: "請求書" });
console.log(`PDF: renderer ${pdf.length} bytes, Chromium's own ${raw.length} bytes`);
await renderer.close();
await browser.close();
