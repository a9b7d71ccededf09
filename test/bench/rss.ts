import { removeDataDir, startStack } from "../helpers/local-stack.ts";
import { processRssMb, treeRssMb } from "./tree-rss.ts";
import { fmt, percentile, runConcurrent } from "./stats.ts";

export interface RssPhaseOptions {
  warmUps: number;
  renders: number;
  /** Print the Node/Chromium split of every sample instead of every 250th render's. */
  everySample: boolean;
  log: (line: string) => void;
}

/**
 * Memory of one workload on its own: a fresh stack, warmed up, then `renders` sync singles of
 * `params` in a row, the RSS of the stack's process tree (Node + Chromiums) sampled every 50th.
 * Returns the summary line: stable = no sample more than 10 % above the run's typical level
 * (the median), and the second half's peak not more than 10 % above the first half's. A
 * single starting sample is no baseline (it may land while a recycled browser relaunches);
 * dips below the median are not growth. A leak shows in both even though recycling bounds it.
 */
export async function runRssPhase(params: Record<string, unknown>, options: RssPhaseOptions): Promise<string> {
  const { warmUps, renders, everySample, log } = options;
  const stack = await startStack({ env: { PLATEN_ACCESS_LOG: "0" } });
  const ws = stack.localJson.workspaces[0]!;
  const designId = ws.designs.find((d) => d.label.includes("請求書"))!.id;
  const render = async (): Promise<void> => {
    const res = await fetch(`${stack.baseUrl}/file/sync/single`, {
      method: "POST",
      headers: { appkey: ws.appKey, "content-type": "application/json" },
      body: JSON.stringify({ designId, version: 1, content: { fileName: "bench", params } }),
    });
    if (res.status !== 200) throw new Error(`sync single answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  try {
    await runConcurrent(warmUps, 1, render);
    log(`RSS across ${renders} consecutive renders (a fresh stack after ${warmUps} warm-up renders; process tree):`);
    const samples: number[] = [];
    for (let i = 1; i <= renders; i++) {
      await render();
      if (i % 50 !== 0) continue;
      const mb = treeRssMb(stack.pid);
      samples.push(mb);
      if (everySample || i % 250 === 0) {
        const node = processRssMb(stack.pid);
        log(`  after ${i}: ${fmt(mb)} MB (Node process ${fmt(node)} MB, Chromium ${fmt(mb - node)} MB)`);
      }
    }
    const half = Math.floor(samples.length / 2);
    const firstPeak = Math.max(...samples.slice(0, half));
    const secondPeak = Math.max(...samples.slice(half));
    const typical = percentile(samples, 50);
    const [lowest, highest] = [Math.min(...samples), Math.max(...samples)];
    const over = (mb: number, base: number) => fmt(((mb - base) / base) * 100, 1);
    const halfRenders = half * 50;
    return `stack RSS over ${renders} renders (every 50th): median ${fmt(typical)} MB, highest ${fmt(highest)} MB (+${over(highest, typical)} %); peak of renders ${halfRenders + 1}–${renders} ${fmt(secondPeak)} MB vs ${fmt(firstPeak)} MB in 1–${halfRenders} (${over(secondPeak, firstPeak)} %); target: both within 10 %; lowest ${fmt(lowest)} MB, last ${fmt(samples.at(-1)!)} MB`;
  } finally {
    await stack.stop();
    removeDataDir(stack.dataDir);
  }
}
