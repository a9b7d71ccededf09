import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { DEFAULT_RATES } from "#shared/limits/limits-config.ts";
import type { RunningStack } from "../helpers/local-stack.ts";
import type { startFloor } from "./floor.ts";
import { fmt, percentile, runConcurrent } from "./stats.ts";
import { descendantPids } from "./tree-rss.ts";

type Floor = Awaited<ReturnType<typeof startFloor>>;

/** The async route of a running stack for its demo workspace's invoice: POST, then poll the status until it ends. */
export function asyncMultipleOf(stack: RunningStack) {
  const ws = stack.localJson.workspaces[0]!;
  const designId = ws.designs.find((d) => d.label.includes("請求書"))!.id;
  /**
   * Polls the status as often as a client may within the status limit (shared/limits/README.md#rate-limits:
   * 300 a minute per workspace, so every 200 ms, or every `pollers` × 200 ms while that many requests
   * of the workspace are polled at once); resolves with its `completedAt` (epoch ms, the service's clock:
   * this machine's) once the request has ended, so the poll's own period does not count. (Polling
   * every 50 ms, ten requests at once asked the stack 40 times what the limit allows: a third of
   * its AWS calls were the bench's status reads, taking CPU from the renders it measures.)
   */
  const waitEnded = async (requestId: string, pollers = 1): Promise<number> => {
    const everyMs = (60_000 / DEFAULT_RATES.status) * pollers;
    for (;;) {
      const res = await fetch(`${stack.baseUrl}/file/status/${requestId}`, { headers: { appkey: ws.appKey } });
      const { status, completedAt } = (await res.json()) as { status: string; completedAt?: string };
      if (status === "completed" || status === "failed") return Date.parse(completedAt!);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  return {
    /** POSTs the files; resolves with the request id and the 202's time. */
    async accept(contents: unknown[]): Promise<{ requestId: string; ms: number }> {
      const t = performance.now();
      const res = await fetch(`${stack.baseUrl}/file/async/multiple`, {
        method: "POST",
        headers: { appkey: ws.appKey, "content-type": "application/json" },
        body: JSON.stringify({ designId, version: 1, contents }),
      });
      if (res.status !== 202) throw new Error(`async multiple answered ${res.status}: ${await res.text()}`);
      const { requestId } = (await res.json()) as { requestId: string };
      return { requestId, ms: performance.now() - t };
    },
    waitEnded,
  };
}

/** CPU seconds (user + system) the processes have used so far, from /proc (a process gone counts 0). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended meanwhile
    }
  }
  return ticks / 100; // USER_HZ
}

/** One request of the phase: seconds to its `completedAt` and to the poll that saw it, the floor around it, CPU per file. */
interface Round {
  seconds: number;
  seenSeconds: number;
  floor: number;
  acceptMs: number;
  nodeMs: number;
  chromiumMs: number;
}

/**
 * `BENCH_ONLY=async`: 100-file async requests against 100 floor renders, in rounds that
 * alternate floor, request, floor, … so each request is compared with the floor runs on either
 * side of it (the machine's load drifts; a ratio compares within one round). CPU per file tells
 * where the difference goes: the service's and the floor's Chromiums do the same work, so what
 * the stack's Node process spends beyond the floor's templating is the service's own.
 */
export async function runAsyncPhase(
  stack: RunningStack,
  floor: Floor,
  bundle: DesignBundle,
  sample: Record<string, unknown>,
  rounds: number,
  log: (line: string) => void,
): Promise<string[]> {
  const route = asyncMultipleOf(stack);
  const contents = Array.from({ length: 100 }, (_, i) => ({ fileName: `invoice-${i}`, params: sample }));
  // The floor's CPU: its browsers, and this process's templating; the service's: the stack's Node
  // process (handlers and emulators) and its Chromiums.
  const benchCpu = () => (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
  const floorCpuMs: { chromium: number; node: number }[] = [];
  const floor100 = async () => {
    const [chromium0, node0] = [cpuSeconds(floor.pids()), benchCpu()];
    const { seconds } = await runConcurrent(
      100,
      floor.pids().length,
      async () => void (await floor.render(bundle, sample)),
    );
    floorCpuMs.push({ chromium: (cpuSeconds(floor.pids()) - chromium0) * 10, node: (benchCpu() - node0) * 10 });
    return seconds;
  };
  log("warming up (30 floor renders, one 100-file request)…");
  await runConcurrent(30, floor.pids().length, async () => void (await floor.render(bundle, sample)));
  await route.waitEnded((await route.accept(contents)).requestId);
  const loadBefore = loadavg()[0]!;
  const floors = [await floor100()];
  const rows: Round[] = [];
  for (let i = 0; i < rounds; i++) {
    const chromiums = descendantPids(stack.pid);
    const [node0, chromium0] = [cpuSeconds([stack.pid]), cpuSeconds(chromiums)];
    const [start, startEpoch] = [performance.now(), Date.now()];
    const { requestId, ms } = await route.accept(contents);
    const completedAt = await route.waitEnded(requestId);
    const seenSeconds = (performance.now() - start) / 1000;
    const [nodeMs, chromiumMs] = [cpuSeconds([stack.pid]) - node0, cpuSeconds(chromiums) - chromium0].map(
      (s) => s * 10,
    );
    floors.push(await floor100());
    const row = {
      seconds: (completedAt - startEpoch) / 1000,
      seenSeconds,
      floor: (floors[i]! + floors[i + 1]!) / 2,
      acceptMs: ms,
      nodeMs: nodeMs!,
      chromiumMs: chromiumMs!,
    };
    rows.push(row);
    const floorCpu = floorCpuMs.at(-1)!;
    log(
      `  round ${i + 1}: completed in ${fmt(row.seconds, 2)} s (seen ${fmt(seenSeconds, 2)} s), floor ${fmt(row.floor, 2)} s (×${fmt(row.seconds / row.floor, 2)}); CPU ms per file: stack Node ${fmt(nodeMs!, 1)}, its Chromiums ${fmt(chromiumMs!, 1)}; floor Node ${fmt(floorCpu.node, 1)}, its Chromiums ${fmt(floorCpu.chromium, 1)}`,
    );
  }
  const ratios = rows.map((r) => r.seconds / r.floor);
  const p50 = (values: number[]) => percentile(values, 50);
  return [
    "| rounds | load average (1 min) before / after | 202 p50 | completed p50 (seen by the poll) | floor p50 | completed ÷ floor: p50 (each round) | CPU ms per file p50: stack Node / its Chromiums; floor Node / its Chromiums |",
    "|---|---|---|---|---|---|---|",
    `| ${rounds} | ${fmt(loadBefore, 1)} / ${fmt(loadavg()[0]!, 1)} | ${fmt(p50(rows.map((r) => r.acceptMs)))} ms | ${fmt(p50(rows.map((r) => r.seconds)), 2)} s (${fmt(p50(rows.map((r) => r.seenSeconds)), 2)} s) | ${fmt(p50(rows.map((r) => r.floor)), 2)} s | ${fmt(p50(ratios), 2)} (${ratios.map((r) => fmt(r, 2)).join(", ")}) | ${fmt(p50(rows.map((r) => r.nodeMs)), 1)} / ${fmt(p50(rows.map((r) => r.chromiumMs)), 1)}; ${fmt(p50(floorCpuMs.map((f) => f.node)), 1)} / ${fmt(p50(floorCpuMs.map((f) => f.chromium)), 1)} |`,
  ];
}
