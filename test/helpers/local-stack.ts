import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseReadyLine } from "#infra/local/ready-line.ts";
import type { LocalJson } from "#infra/local/seed.ts";
import { prebuiltArgs, providedByRun, runPrebuilt } from "./local-build.ts";
import { chromiumProfiles, descendants, isAlive, removeDirs } from "./processes.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const repoRoot = resolve(import.meta.dirname, "../..");

export interface RunningStack {
  dataDir: string;
  port: number;
  pid: number;
  localJson: LocalJson;
  baseUrl: string;
  /** Whatever the stack printed (for assertions on progress output). */
  output: () => string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * Most suites call an endpoint class more often than shared/limits/README.md#rate-limits allows per minute;
 * they run with the limits raised (configuration, not a bypass). The limits suite passes
 * `PLATEN_RATE_LIMITS: ""` to get the spec's numbers.
 */
export const UNLIMITED = JSON.stringify({
  sync: 1e6,
  async: 1e6,
  retrieval: 1e6,
  status: 1e6,
  preview: 1e6,
  "design-write": 1e6,
});

/**
 * `npm start`'s command (package.json, the same arguments: a unit test holds them together).
 * The old-generation limit is the local stack's own (infra/README.md, "Running it without AWS"):
 * without it V8 sizes the heap from the machine's memory and lets it swing far more.
 */
export const STACK_NODE_ARGS = ["--max-old-space-size=1024", "--import", "tsx", "infra/local/start.ts"];

/**
 * Starts `npm start`'s entry as a child process on a free port with a temporary (or
 * given) data dir, exactly as a user would, and waits for its ready line. `outputFile`
 * also receives what it prints (the shared stacks' output, read from other processes).
 * In a test run, a stack without a data dir starts on a copy of the run's seeded one
 * (stack-broker.ts): a later start of `npm start`, the seed's workspaces, users and
 * gallery already there, which halves the start (the seed publishes every sample in two workspaces).
 * `fresh: true` seeds its own (a test of the first start); so do runs outside vitest.
 * In a test run it starts the same entry as compiled once for the run (local-build.ts), half
 * the CPU of loading it through tsx; `npm start` itself is tested as typed (npm-start.ts).
 * With `PLATEN_TEST_STACK_TIMES=<file>`, each start appends a line: test file, milliseconds.
 */
export async function startStack(
  opts: { dataDir?: string; env?: Record<string, string>; outputFile?: string; fresh?: boolean } = {},
): Promise<RunningStack> {
  const startedAt = Date.now();
  const dataDir = opts.dataDir ?? (await newDataDir(opts.fresh === true));
  const prebuilt = await runPrebuilt();
  const args = prebuilt ? [STACK_NODE_ARGS[0], ...prebuiltArgs(prebuilt, "infra/local/start.ts")] : STACK_NODE_ARGS;
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: "0",
      PLATEN_DATA_DIR: dataDir,
      PLATEN_TEST_HOOKS: "1",
      PLATEN_ACCESS_LOG: "0",
      PLATEN_RATE_LIMITS: UNLIMITED,
      ...(prebuilt ? { PLATEN_LOCAL_PREBUILT: prebuilt } : {}),
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (d: Buffer) => {
    output += d.toString();
    if (opts.outputFile) appendFileSync(opts.outputFile, d);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const ready = await waitForReady(child, () => output);
  logStartTime(Date.now() - startedAt);
  const localJson = JSON.parse(readFileSync(ready.localJson, "utf8")) as LocalJson;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return {
    dataDir,
    port: ready.port,
    pid: child.pid!,
    localJson,
    baseUrl: `http://127.0.0.1:${ready.port}/v1`,
    output: () => output,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
    kill: async () => {
      const browsers = descendants(child.pid!);
      const profiles = chromiumProfiles(child.pid!);
      child.kill("SIGKILL");
      await exited;
      // The browsers end when their pipe closes; then their profiles are ours to remove.
      for (let waited = 0; browsers.some((b) => isAlive(b.pid)) && waited < 10_000; waited += 100) await sleep(100);
      await removeDirs(profiles);
    },
  };
}

/** A temporary data dir: empty, or a copy of the run's seeded one when a stack broker is there. */
async function newDataDir(fresh: boolean): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "platen-test-"));
  const broker = fresh ? undefined : await providedByRun("stackBroker");
  if (!broker) return dataDir;
  const res = await fetch(`${broker}/seeded`, { method: "POST" });
  if (res.status !== 200) throw new Error(`the stack broker could not seed a data dir:\n${await res.text()}`);
  copySeeded(await res.text(), dataDir);
  return dataDir;
}

/** Copies a stopped stack's data dir (without its runtime.json: that pid may be anyone's by now). */
export function copySeeded(seeded: string, dataDir: string): void {
  cpSync(seeded, dataDir, { recursive: true, filter: (src) => src !== join(seeded, "runtime.json") });
}

function logStartTime(ms: number): void {
  const file = process.env.PLATEN_TEST_STACK_TIMES;
  if (!file) return;
  const testFile = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath;
  appendFileSync(file, `${testFile ?? "(shared)"}\t${ms}\n`);
}

function waitForReady(child: ChildProcess, output: () => string): Promise<{ port: number; localJson: string }> {
  return new Promise((resolvePromise, reject) => {
    const onData = () => {
      const ready = parseReadyLine(output());
      if (!ready) return;
      child.stdout!.off("data", onData);
      resolvePromise({ port: Number(new URL(ready.apiBaseUrl).port), localJson: ready.localJsonPath });
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`stack exited with ${code} before ready:\n${output()}`)));
  });
}

export const removeDataDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** fetch against the stack with an appkey and optional extra headers. */
export function api(stack: RunningStack, appKey?: string) {
  return (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    fetch(`${stack.baseUrl}${path}`, {
      ...init,
      headers: { ...(appKey !== undefined && { appkey: appKey }), ...init.headers },
    });
}

/**
 * Waits until the stack has no invocation running, including a sync generation's work
 * after its answer (its PDFs, records and page count are stored after the response):
 * call it before reading the stores directly.
 */
export async function settled(stack: RunningStack): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${stack.port}/__local/settled`, { method: "POST" });
  if (res.status !== 200) throw new Error(`settled hook answered ${res.status}`);
}
