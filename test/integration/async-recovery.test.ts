import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFileRecords } from "#shared/generation/store/index.ts";
import { type CrashWindow, type CrashWindowRequest, writeCrashWindow } from "../helpers/async-crash-windows.ts";
import {
  foreverDesign,
  INVOICE,
  INVOICE_LABEL,
  invoiceItem,
  invoiceItems,
  invoiceOf,
} from "../helpers/async-fixtures.ts";
import {
  type AcceptedJson,
  acceptOrFail,
  download,
  errorOf,
  pollStatus,
  type StatusAnswer,
} from "../helpers/async-http.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { readRequestRecords } from "../helpers/async-tables.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { publishFolder, sampleParams, writeDesignFolder } from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";

/**
 * Requests whose generation process stopped ("generation process stopped", error GENERATION_INTERRUPTED):
 * a stack SIGKILLed mid-batch and restarted on the same data dir, requests frozen at
 * the precise crash points of the worker, and a render that always times out (a failure
 * of the document itself: it fails at once, never retried into the dead-letter queue,
 * whose path async-batch covers). None may stay `processing`.
 *
 * The first stack is killed; the restarted one runs with a 4 s render budget and
 * visibility 720 s × 0.005 ≈ 3.6 s. This process's domain clients point at the first
 * stack's emulators, so everything written through them happens before the kill.
 */

type Workspace = RunningStack["localJson"]["workspaces"][number];

const FAST_RETRIES = { PLATEN_VISIBILITY_SCALE: "0.005" };
const RESTART_ENV = { ...FAST_RETRIES, RENDER_TIMEOUT_MS: "4000" };

let stack: RunningStack | undefined;
let dataDir: string;
let demo: Workspace;
let invoice: { designId: string; version: number };
let forever: { id: string; version: number };
let tmp: string;
const frozen = new Map<CrashWindow, CrashWindowRequest>();
let restarted = false;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  stack = await startStack({ env: FAST_RETRIES });
  dataDir = stack.dataDir;
  demo = stack.localJson.workspaces[0]!;
  const design = invoiceOf(demo);
  invoice = { designId: design.id, version: design.latestVersion };
  tmp = mkdtempSync(join(tmpdir(), "platen-async-recovery-"));
  forever = await publishFolder(stack, demo.id, writeDesignFolder(tmp, "forever", foreverDesign));
  useStackEmulators(dataDir);
  const sync = await syncCaller(stack, demo.appKey)("single", { ...invoice, content: invoiceItem("seed") });
  expect(sync.status).toBe(200);
  const pdf = Buffer.from(await sync.arrayBuffer());
  const input = {
    workspaceId: demo.id,
    design: { ...invoice, label: INVOICE_LABEL },
    params: sampleParams(INVOICE),
    pdf,
  };
  for (const window of ["after-last-count", "between-settle-and-count", "single-settled-not-ended"] as const)
    frozen.set(window, await writeCrashWindow(window, input));
});

afterAll(async () => {
  await stack?.stop();
  if (dataDir) removeDataDir(dataDir);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The restarted stack (the crash test makes it). */
function current(): RunningStack {
  if (!stack || !restarted) throw new Error("the stack was not restarted (see the crash test)");
  return stack;
}

/** Polls a request to its end; a failure says what its records hold (and the stack's last output). */
async function pollToEnd(s: RunningStack, requestId: string, timeoutMs: number): Promise<StatusAnswer> {
  try {
    return await pollStatus(s, demo.appKey, requestId, { timeoutMs });
  } catch (err) {
    const records = await readRequestRecords(s, requestId).catch((e: Error) => e.message);
    throw new Error(
      `${(err as Error).message}\nrecords: ${JSON.stringify(records)}\n--- stack output (tail) ---\n${s.output().slice(-1500)}`,
      {
        cause: err,
      },
    );
  }
}

/** A request that ended: `completed` (every file accounted for) or `failed` with GENERATION_INTERRUPTED. */
function expectEnded(answer: StatusAnswer, accepted: AcceptedJson): void {
  const { body } = answer;
  if (body.status === "failed") {
    expect(body.error?.code).toBe("GENERATION_INTERRUPTED");
    return;
  }
  expect(body.status).toBe("completed");
  const failed = body.failedFiles ?? [];
  for (const f of failed) expect(f.code).toBe("GENERATION_INTERRUPTED");
  expect([...body.files.map((f) => f.fileId), ...failed.map((f) => f.fileId)].sort()).toEqual(
    accepted.files.map((f) => f.fileId).sort(),
  );
}

describe("a generation process that stops", () => {
  it("SIGKILL mid-batch, restart on the same data dir: the request ends (completed or GENERATION_INTERRUPTED), never stuck in processing", async () => {
    const first = stack!;
    const accepted = await acceptOrFail(first, demo.appKey, "multiple", {
      ...invoice,
      contents: invoiceItems(30, "crash"),
    });
    // Kill as soon as a file has settled (progress), or after 5 s at the latest.
    const started = Date.now();
    let settledAtKill = 0;
    while (Date.now() - started < 5000) {
      settledAtKill = (await listFileRecords(accepted.requestId)).filter((r) => r.status !== "queued").length;
      if (settledAtKill > 0) break;
      await sleep(20);
    }
    await first.kill();
    expect(settledAtKill, "the kill must land mid-batch").toBeLessThan(30);

    stack = await startStack({ dataDir, env: RESTART_ENV });
    restarted = true;
    expect(stack.output()).toMatch(/re-queued \d+ unfinished file\(s\)/);
    const ended = await pollToEnd(stack, accepted.requestId, 60_000);
    expectEnded(ended, accepted);
    if (ended.body.status === "completed") {
      const zip = await download(stack, demo.appKey, accepted.requestId);
      expect(zip.status).toBe(200);
    }
  }, 150_000);

  it("requests frozen at the worker's crash points (settled but not counted; counted but not finalized; a single's file done, its request not ended) are finished after the restart", async () => {
    const s = current();
    // Both are polled side by side; the only file left to render takes well under a second.
    const windows = [...frozen.entries()];
    const answers = await Promise.allSettled(windows.map(([, request]) => pollToEnd(s, request.requestId, 15_000)));
    answers.forEach((answer, i) => {
      const [window, request] = windows[i]!;
      expect
        .soft(answer.status === "fulfilled" ? answer.value.body.status : String(answer.reason), window)
        .toBe("completed");
      if (answer.status === "fulfilled")
        expect
          .soft(
            answer.value.body.files.map((f) => f.fileId),
            window,
          )
          .toEqual(request.fileIds);
    });
  }, 30_000);

  it("a render that always times out fails at its first attempt and the single ends `failed` with RENDER_TIMEOUT", async () => {
    const s = current();
    const accepted = await acceptOrFail(s, demo.appKey, "single", {
      designId: forever.id,
      version: forever.version,
      content: { fileName: "never", params: { n: "x" } },
    });
    const started = Date.now();
    const ended = await pollToEnd(s, accepted.requestId, 60_000);
    // One 4 s attempt, not five retries 3.6 s apart (~35 s).
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(ended.body.status).toBe("failed");
    expect(ended.body.error).toEqual({ code: "RENDER_TIMEOUT", message: expect.any(String) });
    expect(ended.body.failedFiles).toEqual([
      { fileId: accepted.files[0]!.fileId, fileName: "never", code: "RENDER_TIMEOUT", message: expect.any(String) },
    ]);
    expect(ended.body.files).toEqual([]);
    for (const fileId of [undefined, accepted.files[0]!.fileId]) {
      const answer = await errorOf(await download(s, demo.appKey, accepted.requestId, fileId));
      expect([answer.status, answer.body.code]).toEqual([422, "FILE_GENERATION_FAILED"]);
      expect(answer.body.message).toContain("RENDER_TIMEOUT");
    }
  }, 90_000);
});
