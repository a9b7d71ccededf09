import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { systemClock } from "#shared/clock.ts";
import { monthOf } from "#shared/limits/page-quota.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { createWorkspace, type Plan } from "#shared/workspaces/workspace-store.ts";
import { hostOf, moveClock } from "./async-http.ts";
import { type RunningStack, settled } from "./local-stack.ts";
import { useStackEmulators } from "./stack-clients.ts";
import { publishFolder, sampleDir, type TestDesignSource, writeDesignFolder } from "./sync-fixtures.ts";
import { adminCliArgs } from "./local-build.ts";

const repoRoot = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** `admin usage --json` (infra/admin/cli.ts). */
export interface UsageJson {
  workspaceId: string;
  month: string;
  plan: string | null;
  pagesUsed: number;
  limit: number | null;
  stops: boolean | null;
  overage: number;
}

/**
 * Runs the admin CLI against a running stack, as an operator would (`npm run admin`), and
 * parses its `--json` output. `env` should carry the stack's limit configuration
 * (PLATEN_PLAN_PAGES): the CLI reads the plans from its own environment.
 */
export async function adminJson<T>(stack: RunningStack, args: string[], env: Record<string, string> = {}): Promise<T> {
  const { stdout } = await run(process.execPath, await adminCliArgs(...args, "--json"), {
    cwd: repoRoot,
    env: { ...process.env, ...env, PLATEN_DATA_DIR: stack.dataDir },
  });
  return JSON.parse(stdout) as T;
}

/** `admin usage --workspace ID --json`. */
/** `admin usage`, once the stack has stored what it answered (sync counts pages after its answer). */
export async function adminUsage(
  stack: RunningStack,
  workspaceId: string,
  env: Record<string, string> = {},
): Promise<UsageJson> {
  await settled(stack);
  return adminJson<UsageJson>(stack, ["usage", "--workspace", workspaceId], env);
}

/**
 * Pages counted this month, read straight from the stack's usage table (fast, for loops;
 * the assertions that matter go through `adminUsage`). Only valid for the first stack a
 * test process talks to: the SDK clients keep the first emulator endpoints.
 */
export async function pagesUsedNow(stack: RunningStack, workspaceId: string, at: Date = new Date()): Promise<number> {
  await settled(stack);
  useStackEmulators(stack.dataDir);
  return dynamoPageCounter.used(workspaceId, monthOf(at));
}

/** `GET /__local/renderer`: the renderer pool of the stack's process. */
export interface RendererStats {
  browsers: number;
  busy: number;
  queued: number;
  renders: number;
}

export async function rendererStats(stack: RunningStack): Promise<RendererStats> {
  const res = await fetch(`${hostOf(stack)}/__local/renderer`);
  if (res.status !== 200) throw new Error(`renderer hook answered ${res.status}`);
  return (await res.json()) as RendererStats;
}

/** Polls the renderer stats until `until` holds; returns the last stats (the caller asserts). */
export async function waitForRenderer(
  stack: RunningStack,
  until: (s: RendererStats) => boolean,
  timeoutMs: number,
): Promise<RendererStats> {
  const deadline = Date.now() + timeoutMs;
  let last = await rendererStats(stack);
  while (!until(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    last = await rendererStats(stack);
  }
  return last;
}

/** The service clock of a stack as the test moves it (`POST /__local/clock`). */
export interface ServiceClock {
  /** The service's current time in ms (real time + the offset set last). */
  now(): number;
  offsetMs(): number;
  setOffset(ms: number): Promise<void>;
  /**
   * Moves the service clock to `secondsIn` seconds into the next minute window
   * (shared/limits/README.md#rate-limits rate windows are fixed minutes), a window no earlier test used.
   * Returns its bounds.
   */
  enterFreshWindow(secondsIn: number): Promise<{ start: number; end: number }>;
}

export function serviceClock(stack: RunningStack): ServiceClock {
  let offset = 0;
  const clock: ServiceClock = {
    now: () => Date.now() + offset,
    offsetMs: () => offset,
    setOffset: async (ms) => {
      await moveClock(stack, ms);
      offset = ms;
    },
    enterFreshWindow: async (secondsIn) => {
      const start = (Math.floor(clock.now() / 60_000) + 1) * 60_000;
      await clock.setOffset(start + secondsIn * 1000 - Date.now());
      return { start, end: start + 60_000 };
    },
  };
  return clock;
}

export interface PlanTenant {
  workspaceId: string;
  appKey: string;
  /** The invoice sample (1 page with its sampleParams), version 1. */
  invoiceId: string;
}

/**
 * A fresh workspace with the invoice sample published. `plan` is written as given, so a
 * test can create a workspace without a plan or with a plan value that is not active.
 */
export async function createPlanTenant(
  stack: RunningStack,
  name: string,
  plan: string | undefined,
): Promise<PlanTenant> {
  useStackEmulators(stack.dataDir);
  const { workspace, appKey } = await createWorkspace({ name, plan: plan as Plan | undefined }, systemClock);
  const invoice = await publishFolder(stack, workspace.id, sampleDir("invoice-ja"));
  return { workspaceId: workspace.id, appKey, invoiceId: invoice.id };
}

/**
 * Slow on purpose in Chromium, not in Liquid (a long Liquid loop would hold the service's
 * event loop): `n` pages of text. About 7 ms a page on an idle 2-core machine.
 */
export const slowDesign: TestDesignSource = {
  label: "TEST slow pages",
  parameters: [
    { name: "n", type: "number", label: "Pages" },
    { name: "filler", type: "text", label: "Filler" },
  ],
  template: '{% for i in (1..n) %}<p class="pg">{{ i }} {{ filler }}</p>{% endfor %}',
  css: ".pg { break-after: page; font-size: 9pt; }",
};

/** Publishes `slowDesign` into a workspace of the stack. */
export async function publishSlowDesign(
  stack: RunningStack,
  workspaceId: string,
): Promise<{ id: string; version: number }> {
  const dir = mkdtempSync(join(tmpdir(), "platen-limits-"));
  try {
    return await publishFolder(stack, workspaceId, writeDesignFolder(dir, "slow", slowDesign));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Params of `slowDesign` for `pages` pages. */
export const slowParams = (pages: number) => ({ n: pages, filler: "lorem ipsum dolor sit amet ".repeat(120) });

/** Runs `count` calls of `fn`, at most `concurrency` at a time; results in call order. */
export async function burst<T>(count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
