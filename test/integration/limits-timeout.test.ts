import { afterAll, beforeAll, expect, it } from "vitest";
import { invoiceSingle, postJson } from "../helpers/limits-http.ts";
import {
  adminUsage,
  createPlanTenant,
  type PlanTenant,
  pagesUsedNow,
  publishSlowDesign,
  rendererStats,
  slowParams,
  waitForRenderer,
} from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { fileRecordsOfWorkspace, useStackEmulators } from "../helpers/stack-clients.ts";

/**
 * The sync time-out (shared/limits/README.md#service-limits) (60 s, 504 from the gateway) without waiting a
 * minute: PLATEN_TIMEOUT_SCALE 0.05 turns the integration time-out into 3 s. The design is slow in
 * Chromium (thousands of text pages), so the service's own event loop stays free.
 */

const SYNC_TIMEOUT_MS = 60_000 * 0.05;

let stack: RunningStack;
let tenant: PlanTenant;
let slow: { id: string; version: number };

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_TIMEOUT_SCALE: "0.05" } });
  tenant = await createPlanTenant(stack, "Time-out", "standard");
  slow = await publishSlowDesign(stack, tenant.workspaceId);
  useStackEmulators(stack.dataDir);
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

it("a sync request past the time-out gets 504 quickly; the abandoned render frees its page within seconds and no pages are counted", async () => {
  expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(0);
  const started = Date.now();
  // Unbounded this document takes well over 10 s to render.
  const res = await postJson(stack, tenant.appKey, "/file/sync/single", {
    designId: slow.id,
    version: slow.version,
    content: { fileName: "too slow", params: slowParams(2_000) },
  });
  const elapsed = Date.now() - started;
  const text = await res.text();
  if (res.status !== 504) console.error(stack.output().slice(-4000)); // what the service logged, for the failure
  // Soft, so the checks after it still run when the status is wrong.
  expect.soft(res.status, `answered after ${elapsed} ms with ${text.slice(0, 300)}`).toBe(504);
  expect(elapsed).toBeLessThan(SYNC_TIMEOUT_MS + 3_000);

  // No page stays open for an answer nobody waits for.
  const idle = await waitForRenderer(stack, (s) => s.busy === 0 && s.queued === 0, 5_000);
  expect({ busy: idle.busy, queued: idle.queued }).toEqual({ busy: 0, queued: 0 });
  // Whatever still ran after the answer has settled by now: nothing was stored, nothing counted.
  await new Promise((r) => setTimeout(r, Math.max(0, started + SYNC_TIMEOUT_MS + 1_000 - Date.now())));
  expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(0);
  // The file records written ahead of the render are gone again (sync-generation.ts).
  expect(await fileRecordsOfWorkspace(tenant.workspaceId)).toEqual([]);

  // The renderer recovers and the service keeps answering within the time-out.
  expect((await waitForRenderer(stack, (s) => s.browsers > 0 && s.busy === 0, 10_000)).browsers).toBeGreaterThan(0);
  const renders = (await rendererStats(stack)).renders;
  const ok = await postJson(stack, tenant.appKey, "/file/sync/single", invoiceSingle(tenant.invoiceId));
  expect([ok.status, ok.headers.get("x-page-count")]).toEqual([200, "1"]);
  await ok.arrayBuffer();
  expect((await rendererStats(stack)).renders).toBe(renders + 1);
  expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(1);
});
