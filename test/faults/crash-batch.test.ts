import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AcceptedJson, acceptOrFail } from "../helpers/async-http.ts";
import { endAll, expectInvariant, fileStatusesOf } from "../helpers/faults.ts";
import { adminUsage, createPlanTenant, type PlanTenant, rendererStats } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { publishFolder, type TestDesignSource, writeDesignFolder } from "../helpers/sync-fixtures.ts";

/**
 * The whole stack killed with SIGKILL while an async batch renders, then started again on the same
 * data folder (shared/generation/README.md#reliability). The render queue keeps its real visibility
 * time-out here (crash-restart.test.ts scales it down): a message is delivered again only if the
 * worker dies, so a file rendered twice would show in the renderer's count.
 */

let stack: RunningStack;
let dataDir: string;
/** A plan that never stops: each request's billed pages are on its own item and compared too. */
let big: PlanTenant;
/** A one-line document: the case is about the batch, and its 500 renders should not dominate the suite. */
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
  it("SIGKILL while 100 requests × 5 files render, restarted on the same data folder: every request completes with every file, billed = delivered per request, no file rendered twice", async () => {
    const accepted: AcceptedJson[] = [];
    let started = 0;
    const send = async () => {
      for (let i = started++; i < 100; i = started++)
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
      if (before.filter((s) => s === "done").length >= 40) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await stack.kill();
    const queued = before.filter((s) => s === "queued").length;
    expect(before).toHaveLength(500);
    expect(queued, "files still to render at the kill").toBeGreaterThan(100);
    expect(before.filter((s) => s === "done").length).toBeGreaterThanOrEqual(40);

    stack = await startStack({ dataDir });
    const ended = await endAll(stack, big.appKey, accepted, 300_000);
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
