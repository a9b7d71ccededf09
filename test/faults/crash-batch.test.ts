import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AcceptedJson, acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { type EndedRequest, expectInvariant, fileStatusesOf } from "../helpers/faults.ts";
import { adminUsage, createPlanTenant, type PlanTenant, rendererStats } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { publishFolder, type TestDesignSource, writeDesignFolder } from "../helpers/sync-fixtures.ts";

/**
 * The whole stack killed with SIGKILL while an async batch renders, then started again on the same
 * data folder (shared/generation/README.md#reliability). The render queue keeps its real visibility
 * time-out here (crash-restart.test.ts scales it down): a message is delivered again only if the
 * worker dies, so a file rendered twice would show in the renderer's count. A render that fails after
 * the restart (a slow machine's store or browser error) comes back after its retry back-off (30 s first,
 * render-queue.ts `retryLater`), within the wait below.
 */

/** Requests of 5 files each sent before the kill. */
const REQUESTS = 40;
const FILES = REQUESTS * 5;
/** The kill waits for this many files done (8 %, as 40 of 500 before); it expects over a fifth still queued. */
const DONE_AT_KILL = 16;

let stack: RunningStack;
let dataDir: string;
/** A plan that never stops: each request's billed pages are on its own item and compared too. */
let big: PlanTenant;
/** A one-line document: the case is about the batch, and its 200 renders should not dominate the suite. */
let note: { id: string; version: number };
const noteDesign: TestDesignSource = {
  label: "TEST note",
  parameters: [{ name: "n", type: "number", label: "N" }],
  template: "<p>Note {{ n }}</p>",
  sampleParams: { n: 0 },
};

beforeAll(async () => {
  stack = await startStack();
  dataDir = stack.dataDir;
  big = await createPlanTenant(stack, "Killed batch", "standard");
  const dir = mkdtempSync(join(tmpdir(), "platen-crash-batch-"));
  try {
    note = await publishFolder(stack, big.workspaceId, writeDesignFolder(dir, "note", noteDesign));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

afterAll(async () => {
  await stack?.stop();
  if (dataDir) removeDataDir(dataDir);
});

describe("the stack is killed mid-batch", () => {
  it("SIGKILL while 40 requests × 5 files render, restarted on the same data folder: every request completes with every file, billed = delivered per request, no file rendered twice", async () => {
    // 40 requests, not more: acceptance and rendering run side by side at the same pace whatever the
    // batch, so the kill finds the same mix as with 100 (measured: 40 done, 160 queued; every request
    // with files still to render), at 200 renders instead of 500.
    const accepted: AcceptedJson[] = [];
    let started = 0;
    const send = async () => {
      for (let i = started++; i < REQUESTS; i = started++)
        accepted.push(
          await acceptOrFail(stack, big.appKey, "multiple", {
            designId: note.id,
            version: note.version,
            contents: Array.from({ length: 5 }, (_, k) => ({ fileName: `batch-${i}-${k}`, params: { n: i * 5 + k } })),
          }),
        );
    };
    await Promise.all([send(), send(), send(), send()]);
    // Kill it mid-way: some files rendered and settled, most still queued or rendering. Its
    // DynamoDB dies with it, so the states are read just before the kill (they only move on).
    const statuses = () => fileStatusesOf(stack, big.workspaceId);
    let before: string[] = [];
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
      before = await statuses();
      if (before.filter((s) => s === "done").length >= DONE_AT_KILL) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await stack.kill();
    const queued = before.filter((s) => s === "queued").length;
    const count = (status: string) => before.filter((s) => s === status).length;
    console.log(
      `crash-batch: at the kill ${count("done")} done, ${queued} queued, ${FILES - count("done") - queued} between`,
    );
    expect(before).toHaveLength(FILES);
    expect(queued, "files still to render at the kill").toBeGreaterThan(FILES / 5);
    expect(count("done")).toBeGreaterThanOrEqual(DONE_AT_KILL);

    stack = await startStack({ dataDir });
    const ended = await endInTurn(accepted, Date.now() + 300_000).catch((error: Error) => {
      throw new Error(`${error.message}\nthe restarted stack's warnings and errors:\n${notices(stack.output())}`);
    });
    expect(ended.map((e) => e.ended.body.status)).toEqual(accepted.map(() => "completed"));
    expect(ended.every((e) => e.ended.body.files.length === 5)).toBe(true);
    // The restarted process rendered only files that had not been rendered and settled before the
    // kill (at most those queued just before it; a file may have settled in between).
    const renders = (await rendererStats(stack)).renders;
    expect(renders).toBeGreaterThan(0);
    expect(renders).toBeLessThanOrEqual(queued);
    const billed = (await adminUsage(stack, big.workspaceId)).pagesUsed;
    await expectInvariant(stack, big.workspaceId, ended, undefined, billed);
  }, 600_000);
});

/** The lines of a stack's output above INFO (the last 40): what went wrong, if anything did. */
const notices = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.trim() && !line.includes('"level":"INFO"'))
    .slice(-40)
    .join("\n");

/**
 * Polls the requests to their end one after another: the first ones end while the last still
 * render, so this costs about one status call per poll interval rather than one per request.
 */
async function endInTurn(accepted: AcceptedJson[], deadline: number): Promise<EndedRequest[]> {
  const ended: EndedRequest[] = [];
  for (const a of accepted) {
    const timeoutMs = Math.max(deadline - Date.now(), 1_000);
    ended.push({ accepted: a, ended: await pollStatus(stack, big.appKey, a.requestId, { timeoutMs }) });
  }
  return ended;
}
