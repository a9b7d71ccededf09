import { afterAll, beforeAll, expect, it } from "vitest";
import { acceptOrFail, download, errorOf, pollStatus } from "../helpers/async-http.ts";
import { watchHealth } from "../helpers/limit-fixtures.ts";
import { invoiceSingle, postJson } from "../helpers/limits-http.ts";
import {
  adminUsage,
  createPlanTenant,
  type PlanTenant,
  publishSlowDesign,
  slowParams,
} from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { fileRecordsOfWorkspace, useStackEmulators } from "../helpers/stack-clients.ts";

/**
 * The render deadline (issue: per-document limits) ends an async file with its own code at the
 * first attempt, bills nothing, and the service keeps answering. A 2 s budget: ~1,990 text
 * pages take several seconds even on a quiet machine (about 7 ms a page, limits-stack.ts), so
 * the document passes it whatever the machine's load.
 */

let stack: RunningStack;
let tenant: PlanTenant;

beforeAll(async () => {
  stack = await startStack({ env: { RENDER_TIMEOUT_MS: "2000" } });
  // free: 30 pages a month and stops, so the request reserves pages that must be refunded.
  tenant = await createPlanTenant(stack, "Render deadline", "free");
  useStackEmulators(stack.dataDir);
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

it("async: the file fails with RENDER_TIMEOUT at once (not retried into GENERATION_INTERRUPTED); nothing is billed; the service renders the next file", async () => {
  const health = watchHealth(stack);
  const slow = await publishSlowDesign(stack, tenant.workspaceId);
  const started = Date.now();
  const accepted = await acceptOrFail(stack, tenant.appKey, "single", {
    designId: slow.id,
    version: slow.version,
    content: { fileName: "slow", params: slowParams(1_990) },
  });
  const ended = await pollStatus(stack, tenant.appKey, accepted.requestId, { timeoutMs: 90_000 });
  expect([ended.body.status, ended.body.error?.code]).toEqual(["failed", "RENDER_TIMEOUT"]);
  expect(ended.body.failedFiles?.map((f) => f.code)).toEqual(["RENDER_TIMEOUT"]);
  const answer = await errorOf(await download(stack, tenant.appKey, accepted.requestId, accepted.files[0]!.fileId));
  expect([answer.status, answer.body.code]).toEqual([422, "FILE_GENERATION_FAILED"]);
  // One attempt (2 s and a relaunch), not five.
  expect(Date.now() - started).toBeLessThan(45_000);
  expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(0);
  expect((await fileRecordsOfWorkspace(tenant.workspaceId)).filter((r) => r.status === "done")).toEqual([]);
  const ok = await postJson(stack, tenant.appKey, "/file/sync/single", invoiceSingle(tenant.invoiceId));
  expect([ok.status, ok.headers.get("x-page-count")]).toEqual([200, "1"]);
  await ok.arrayBuffer();
  expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(1);
  const samples = await health.stop();
  expect(samples.length).toBeGreaterThan(0);
  expect(samples.filter((s) => s.status !== 200)).toEqual([]);
}, 120_000);
