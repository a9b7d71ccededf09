import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOrFail, moveClock, pollStatus } from "../helpers/async-http.ts";
import { armFaults, waitForDeath } from "../helpers/faults.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { createTenant, publishFolder, type Tenant, writeDesignFolder } from "../helpers/sync-fixtures.ts";

/**
 * The stack is killed while an async batch of a record design renders, in the middle of a record's append
 * (its file claimed, its place in the chain not yet taken), then started again on the same data dir: every
 * delivered file has exactly one record, and the chain is intact.
 */
const ENV = { PLATEN_VISIBILITY_SCALE: "0.005", PLATEN_SWEEP_SECONDS: "1" };
const FILES = 8;

let stack: RunningStack;
let dataDir: string;
let tenant: Tenant;
let design: { id: string; version: number };

function writeRecordDesign(root: string): string {
  return writeDesignFolder(root, "record-order", {
    label: "記録する注文書",
    pageSize: "A5",
    parameters: [
      { name: "日付", type: "text", label: "日付" },
      { name: "金額", type: "number", label: "金額" },
    ],
    record: { type: "order", date: "日付", amount: "金額", counterparty: "'株式会社再起動'" },
    template: "<h1>注文書</h1><p>{{ 金額 }} 円 {{ 日付 }}</p>",
  });
}

beforeAll(async () => {
  stack = await startStack({ env: ENV });
  dataDir = stack.dataDir;
  tenant = await createTenant(stack, "records restart");
  design = await publishFolder(
    stack,
    tenant.workspaceId,
    writeRecordDesign(mkdtempSync(join(tmpdir(), "records-restart-"))),
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (dataDir) removeDataDir(dataDir);
});

describe("the stack is killed while a record design's async batch renders", () => {
  it("every delivered file has exactly one record after the restart, and the chain is intact", async () => {
    // The fourth place in the chain kills the process after its file's claim was taken.
    await armFaults(stack, [
      { service: "dynamodb", command: "PutCommand", target: "records", detail: "SEQ#", skip: 3, action: "crash" },
    ]);
    const accepted = await acceptOrFail(stack, tenant.appKey, "multiple", {
      designId: design.id,
      version: design.version,
      contents: Array.from({ length: FILES }, (_, i) => ({
        fileName: `注文書-${i + 1}`,
        params: { 日付: `2026-09-${String(i + 1).padStart(2, "0")}`, 金額: (i + 1) * 1100 },
      })),
    });
    expect(await waitForDeath(stack, 60_000)).toBe(true);
    stack = await startStack({ dataDir, env: ENV });
    // The dead delivery's claim is taken over once any function would have timed out: move past that.
    await moveClock(stack, 10 * 60_000);
    const status = await pollStatus(stack, tenant.appKey, accepted.requestId, { timeoutMs: 120_000 });
    expect(status.body.status).toBe("completed");
    // Read back over the API: this process's AWS clients still name the emulators of the killed stack.
    const call = api(stack, tenant.appKey);
    const records: { fileId: string; seq: number }[] = [];
    let cursor: string | undefined;
    do {
      const page = (await (await call(`/records${cursor ? `?cursor=${cursor}` : ""}`)).json()) as {
        records: { fileId: string; seq: number }[];
        next?: string;
      };
      records.push(...page.records);
      cursor = page.next;
    } while (cursor);
    const delivered = status.body.files.map((f) => f.fileId).sort();
    const failed = (status.body.failedFiles ?? []).map((f) => f.fileId);
    expect(records.map((r) => r.fileId).sort()).toEqual(delivered);
    for (const fileId of failed) expect(records.some((r) => r.fileId === fileId)).toBe(false);
    expect(records.map((r) => r.seq).sort((x, y) => x - y)).toEqual(records.map((_, i) => i + 1));
    const report = await (await call("/records/verify")).json();
    expect(report).toEqual({ checked: records.length, intact: records.length, broken: [] });
    expect(delivered.length).toBe(FILES);
  }, 240_000);
});
