import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJob } from "#shared/generation/job-store.ts";
import { INVOICE } from "../helpers/async-fixtures.ts";
import { pollStatus, renderQueue } from "../helpers/async-http.ts";
import { type QueuedRequest, writeQueuedRequest } from "../helpers/async-queued.ts";
import { eventsOf } from "../helpers/async-tables.ts";
import { adminUsage, createPlanTenant, type PlanTenant, publishSlowDesign, rendererStats, slowDesign, slowParams } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { sampleLabel } from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";

/**
 * Render messages the test chooses: the requests are written straight into the stores
 * (as acceptance would, without sending anything) and their messages sent in one call.
 */

let stack: RunningStack;
let queue: ReturnType<typeof renderQueue>;
/** A real 4-page PDF for a file a test writes as already rendered. */
let pdf4: Buffer;

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_VISIBILITY_SCALE: "0.005" } });
  useStackEmulators(stack.dataDir);
  queue = renderQueue(stack);
  const demo = stack.localJson.workspaces[0]!;
  const slow = await publishSlowDesign(stack, demo.id);
  const res = await syncCaller(stack, demo.appKey)("single", { designId: slow.id, version: slow.version, content: { fileName: "seed", params: slowParams(4) } });
  expect([res.status, res.headers.get("x-page-count")]).toEqual([200, "4"]);
  pdf4 = Buffer.from(await res.arrayBuffer());
});

afterAll(async () => {
  queue?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** A fresh standard-plan workspace (its own page count) with the invoice and the n-page design. */
async function tenantWithDesigns(name: string) {
  const tenant = await createPlanTenant(stack, name, "standard");
  const slow = await publishSlowDesign(stack, tenant.workspaceId);
  return {
    tenant,
    invoice: { designId: tenant.invoiceId, version: 1, label: sampleLabel(INVOICE) },
    pages: { designId: slow.id, version: slow.version, label: slowDesign.label },
  };
}

/** Sends the messages in one call, waits for the requests to end and the queue to drain. */
async function runBatch(tenant: PlanTenant, requests: QueuedRequest[], messages: QueuedRequest["messages"], timeoutMs = 30_000) {
  await queue.drained();
  const before = await rendererStats(stack);
  const messageIds = await queue.sendBatch(messages);
  const answers = await Promise.all(requests.map((r) => pollStatus(stack, tenant.appKey, r.requestId, { timeoutMs })));
  await queue.drained(timeoutMs);
  return { answers, messageIds, renders: (await rendererStats(stack)).renders - before.renders };
}

/** Each request counted every file and ended once (one file.completed event, settled === total). */
async function expectFinalizedOnce(request: QueuedRequest): Promise<void> {
  const job = await getJob(request.requestId);
  expect({ status: job?.status, settled: job?.settled, total: job?.total }).toEqual({ status: "completed", settled: request.messages.length, total: request.messages.length });
  expect((await eventsOf(request.requestId)).map((e) => e.sk)).toEqual(["EVENT#file.completed"]);
}

describe("render messages the test sends", () => {
  it("a file settled by a worker that died before counting it: its replay in a batch counts it with its real pages, once", async () => {
    const { tenant, pages } = await tenantWithDesigns("Batch replay");
    const frozen = await writeQueuedRequest(tenant.workspaceId, pages, [
      { fileName: "rendered", params: slowParams(4), settled: { pdf: pdf4, pageCount: 4 } },
      { fileName: "queued", params: slowParams(2) },
    ]);
    // Delivered twice, as SQS may: the replay is counted once.
    const { answers, renders } = await runBatch(tenant, [frozen], [...frozen.messages, frozen.messages[0]!]);
    expect(answers[0]!.body.files.map((f) => [f.fileName, f.pageCount])).toEqual([["rendered", 4], ["queued", 2]]);
    expect(renders).toBe(1);
    await expectFinalizedOnce(frozen);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(4 + 2);

    // Once more after the end: nothing changes.
    await runBatch(tenant, [frozen], frozen.messages);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(4 + 2);
    await expectFinalizedOnce(frozen);
    expect(stack.output()).not.toContain("render failed, will retry");
  });
});
