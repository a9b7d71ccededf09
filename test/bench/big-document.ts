import { PDFDocument } from "@cantoo/pdf-lib";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { functions } from "#shared/definitions/functions.ts";
import type { RunningStack } from "../helpers/local-stack.ts";
import type { startFloor } from "./floor.ts";
import { fmt, percentile } from "./stats.ts";
import { treeRssMb } from "./tree-rss.ts";

/** Rows of the big invoice, as the requirement sets them: 68 A4 pages of the sample's 明細 table. */
export const BIG_DOCUMENT_ROWS = 2000;

/**
 * A big document (test/bench/README.md#big-documents): the sample invoice with 2,000 明細 rows, sync single
 * at c=1 through the local stack against the floor's `setContent` + `pdf` of the same HTML, alternating. It
 * reports the ratio of p50s, where the floor's time goes (templating, layout, print), the PDF's size and pages,
 * and the stack's highest RSS (Node and its Chromiums) while it renders, against the render functions' memory.
 */
export async function runBigDocumentPhase(
  stack: RunningStack,
  floor: Awaited<ReturnType<typeof startFloor>>,
  bundle: DesignBundle,
  sample: Record<string, unknown> & { 明細: Record<string, unknown>[] },
  runs: number,
): Promise<string[]> {
  const params = {
    ...sample,
    明細: Array.from({ length: BIG_DOCUMENT_ROWS }, (_, i) => ({
      ...sample.明細[i % sample.明細.length]!,
      品名: `品目 ${i + 1}`,
    })),
  };
  const demo = stack.localJson.workspaces[0]!;
  const invoice = demo.designs.find((d) => d.label.includes("請求書"))!.id;
  const endpoint = async () => {
    const started = performance.now();
    const res = await fetch(`${stack.baseUrl}/file/sync/single`, {
      method: "POST",
      headers: { appkey: demo.appKey, "content-type": "application/json" },
      body: JSON.stringify({ designId: invoice, version: 1, content: { fileName: "big", params } }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`sync single answered ${res.status}: ${bytes.toString("utf8", 0, 500)}`);
    return { ms: performance.now() - started, bytes, pages: Number(res.headers.get("x-page-count")) };
  };
  let peakMb = treeRssMb(stack.pid);
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, treeRssMb(stack.pid));
  }, 50);
  const floorRuns: Awaited<ReturnType<typeof floor.renderTimed>>[] = [];
  const endpointRuns: Awaited<ReturnType<typeof endpoint>>[] = [];
  try {
    await floor.renderTimed(bundle, params);
    await endpoint();
    for (let i = 0; i < runs; i++) {
      floorRuns.push(await floor.renderTimed(bundle, params));
      endpointRuns.push(await endpoint());
    }
  } finally {
    clearInterval(sampler);
  }
  const p50 = (values: number[]) => percentile(values, 50);
  const floorMs = floorRuns.map((r) => r.templateMs + r.layoutMs + r.printMs);
  const [fp50, ep50] = [p50(floorMs), p50(endpointRuns.map((r) => r.ms))];
  const floorPdf = floorRuns.at(-1)!.pdf;
  const floorPages = (await PDFDocument.load(floorPdf, { updateMetadata: false })).getPageCount();
  const served = endpointRuns.at(-1)!;
  const memoryMb = functions["generate-sync"].memoryMb;
  return [
    `${BIG_DOCUMENT_ROWS}-row invoice, sync single c=1, ${runs} each alternating: floor p50 ${fmt(fp50)} ms, endpoint p50 ${fmt(ep50)} ms (×${fmt(ep50 / fp50, 2)}; target ≤ 1.15)`,
    `  where the floor's time goes, p50: templating ${fmt(p50(floorRuns.map((r) => r.templateMs)))} ms, setContent (parse, style, layout) ${fmt(p50(floorRuns.map((r) => r.layoutMs)))} ms, pdf (print) ${fmt(p50(floorRuns.map((r) => r.printMs)))} ms; the service's own work ${fmt(ep50 - fp50)} ms`,
    `  the PDF: ${served.pages} pages, ${fmt(served.bytes.length / 1024)} KiB served (floor ${floorPages} pages, ${fmt(floorPdf.length / 1024)} KiB)`,
    `  stack RSS (Node + its Chromiums) highest while rendering: ${fmt(peakMb)} MB, against generate-sync's ${memoryMb} MB`,
  ];
}
