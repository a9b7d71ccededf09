/**
 * The PDF library behind pdf-rewrite.ts (post-processing of a PDF the incremental update does not
 * recognise): load + Info entries + ToUnicode repair + save, timed on Chromium's own PDFs of the
 * one-page invoice sample and of a ~50-page document, p50 of N runs after 5 warm-up runs each,
 * the libraries alternating run by run so load from other work hits them alike.
 * Run: `node --import tsx test/bench/pdf-libraries.ts [runs]` (default 40). A library that is not
 * installed is skipped: after the choice only `@cantoo/pdf-lib` ships; install `pdf-lib@1.17.1`
 * beside it (`--no-save`) to compare again. Figures: shared/render/README.md#the-pdf-library.
 */
import { join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { textString } from "#shared/render/pdf-increment.ts";
import { rewriteWithPdfLib } from "#shared/render/pdf-rewrite.ts";
import { renderHtml } from "#shared/render/template.ts";
import { fixRadicalsInToUnicode } from "#shared/render/to-unicode-fix.ts";
import { percentile } from "./stats.ts";

type PdfLib = typeof import("@cantoo/pdf-lib");
type PdfDict = import("@cantoo/pdf-lib").PDFDict;

const runs = Number(process.argv[2] ?? 40);

/** pdf-rewrite.ts's steps against whichever library is passed: the comparison runs the same code. */
async function rewriteWith(lib: PdfLib, pdf: Uint8Array): Promise<number> {
  const { PDFDocument, PDFDict, PDFName, PDFHexString, PDFString, PDFRawStream, PDFRef, ParseSpeeds } = lib;
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  let info = doc.context.lookup(doc.context.trailerInfo.Info);
  if (!(info instanceof PDFDict)) {
    info = doc.context.obj({});
    doc.context.trailerInfo.Info = doc.context.register(info as never);
  }
  (info as PdfDict).set(PDFName.of("Title"), PDFHexString.of(textString("請求書").text.slice(1, -1)));
  (info as PdfDict).set(PDFName.of("rf:params"), PDFString.of("id=INV-1"));
  const seen = new Set<string>();
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    const ref = object.get(PDFName.of("ToUnicode"));
    if (!(ref instanceof PDFRef) || seen.has(ref.toString())) continue;
    seen.add(ref.toString());
    const stream = doc.context.lookup(ref);
    if (!(stream instanceof PDFRawStream)) continue;
    const fixed = fixRadicalsInToUnicode(inflateSync(stream.contents).toString("latin1"));
    if (fixed !== undefined) {
      doc.context.assign(ref, doc.context.stream(deflateSync(Buffer.from(fixed, "latin1")), { Filter: "FlateDecode" }));
    }
  }
  const bytes = await doc.save({ useObjectStreams: false, objectsPerTick: Number.POSITIVE_INFINITY });
  return bytes.length;
}

async function loadLibrary(name: string): Promise<PdfLib | undefined> {
  try {
    return (await import(name)) as PdfLib;
  } catch {
    return undefined;
  }
}

const fontEnv = await prepareFontEnv();
const browser = await launchChromium({ fontEnv, protocolTimeoutMs: 60_000 });
const page = await browser.newPage();
const bundle = await loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja"));
await page.setContent(
  await renderHtml(bundle, bundle.manifest.sampleParams ?? {}, { title: "請求書", bundleKey: "bench" }),
);
const invoice = await page.pdf({ format: "A4", printBackground: true });
const section = (n: number) =>
  `<section style="break-after: page"><h1>第${n}章 日本語の見出し</h1>${"<p>月曜日から金曜日まで、一人ひとりの請求書を作成します。Invoice line text for search.</p>".repeat(12)}<table>${"<tr><td>品目</td><td>1,200円</td><td>数量 3</td></tr>".repeat(8)}</table></section>`;
await page.setContent(
  `<html lang="ja"><body>${Array.from({ length: 50 }, (_, i) => section(i + 1)).join("")}</body></html>`,
);
const longPdf = await page.pdf({ format: "A4" });
await browser.close();

const libraries = (
  await Promise.all(["@cantoo/pdf-lib", "pdf-lib"].map(async (name) => [name, await loadLibrary(name)] as const))
).filter((entry): entry is readonly [string, PdfLib] => entry[1] !== undefined);
const cases: [string, (pdf: Uint8Array) => Promise<number>][] = [
  ...libraries.map(
    ([name, lib]) =>
      [name, (pdf: Uint8Array) => rewriteWith(lib, pdf)] as [string, (pdf: Uint8Array) => Promise<number>],
  ),
  [
    "pdf-rewrite.ts as shipped",
    async (pdf) => (await rewriteWithPdfLib(pdf, { Title: textString("請求書") }, "id=INV-1")).pdf.length,
  ],
];

for (const [label, pdf] of [
  ["1-page invoice", invoice],
  ["50-page document", longPdf],
] as const) {
  const times = new Map(cases.map(([name]) => [name, [] as number[]]));
  const sizes = new Map<string, number>();
  for (let i = -5; i < runs; i++) {
    for (const [name, rewrite] of cases) {
      const started = performance.now();
      sizes.set(name, await rewrite(pdf));
      if (i >= 0) times.get(name)!.push(performance.now() - started);
    }
  }
  console.log(`\n${label}: Chromium's PDF ${(pdf.length / 1024).toFixed(1)} KB, ${runs} runs each`);
  console.log("| library | p50 ms | p95 ms | best ms | written KB |\n|---|---|---|---|---|");
  for (const [name, values] of times) {
    console.log(
      `| ${name} | ${percentile(values, 50).toFixed(2)} | ${percentile(values, 95).toFixed(2)} | ${Math.min(...values).toFixed(2)} | ${((sizes.get(name) ?? 0) / 1024).toFixed(1)} |`,
    );
  }
}
