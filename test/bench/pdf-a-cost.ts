/**
 * What the archival pass adds to post-processing (shared/render/README.md#pdfa-and-embedded-files): the
 * one-page invoice sample as Chromium prints it (tagged, with an outline), post-processed as today, as
 * PDF/A-2b, and as PDF/A-3b with a Factur-X XML of ~12 KB; p50 / p95 of N runs each after 10 warm-up
 * runs, the variants alternating run by run. The first run of each (module load, the sRGB profile built
 * once) is printed apart: it is a process's first PDF/A document.
 * Run: `node --import tsx test/bench/pdf-a-cost.ts [runs]` (default 200).
 */
import { join } from "node:path";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import type { PostprocessOptions } from "#shared/render/pdf-postprocess.ts";
import { postprocessPdf } from "#shared/render/pdf-postprocess.ts";
import { renderHtml } from "#shared/render/template.ts";
import { percentile } from "./stats.ts";

const runs = Number(process.argv[2] ?? 200);
const browser = await launchChromium({ fontEnv: await prepareFontEnv(), protocolTimeoutMs: 60_000 });
const page = await browser.newPage();
const bundle = await loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja"));
await page.setContent(
  await renderHtml(bundle, bundle.manifest.sampleParams ?? {}, { title: "請求書", bundleKey: "bench" }),
);
const raw = Buffer.from(await page.pdf({ format: "A4", printBackground: true, tagged: true, outline: true }));
await browser.close();

const line = (i: number) =>
  `<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>${i}</ram:LineID></ram:AssociatedDocumentLineDocument><ram:SpecifiedTradeProduct><ram:Name>保守サービス ${i}</ram:Name></ram:SpecifiedTradeProduct></ram:IncludedSupplyChainTradeLineItem>`;
const xml = Buffer.from(
  `<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">${Array.from({ length: 50 }, (_, i) => line(i + 1)).join("")}</rsm:CrossIndustryInvoice>\n`,
);
const base: PostprocessOptions = {
  title: "請求書 INV-1",
  author: "株式会社サンプル",
  passthrough: { invoice: "INV-1" },
};
const variants: [string, PostprocessOptions][] = [
  ["today's post-processing", base],
  ["PDF/A-2b", { ...base, standard: "PDF/A-2b" }],
  [
    `PDF/A-3b + Factur-X XML (${(xml.length / 1024).toFixed(1)} KB)`,
    {
      ...base,
      standard: "PDF/A-3b",
      attachments: [{ name: "factur-x.xml", bytes: xml, mimeType: "text/xml", relationship: "Alternative" }],
      facturX: { documentType: "INVOICE", fileName: "factur-x.xml", version: "1.0", conformanceLevel: "EN 16931" },
    },
  ],
];

const first = new Map<string, number>();
const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
const sizes = new Map<string, number>();
for (let i = -10; i < runs; i++) {
  for (const [name, options] of variants) {
    const started = performance.now();
    const { pdf } = await postprocessPdf(raw, options);
    const ms = performance.now() - started;
    if (!first.has(name)) first.set(name, ms);
    if (i >= 0) times.get(name)?.push(ms);
    sizes.set(name, pdf.length);
  }
}
console.log(`Chromium's PDF: ${(raw.length / 1024).toFixed(1)} KB; ${runs} runs each`);
console.log("| post-processing | first ms | p50 ms | p95 ms | PDF KB |\n|---|---|---|---|---|");
for (const [name, values] of times) {
  console.log(
    `| ${name} | ${first.get(name)?.toFixed(1)} | ${percentile(values, 50).toFixed(2)} | ${percentile(values, 95).toFixed(2)} | ${((sizes.get(name) ?? 0) / 1024).toFixed(1)} |`,
  );
}
