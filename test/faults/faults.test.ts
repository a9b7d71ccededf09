import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDelivery } from "#shared/webhooks/delivery-store.ts";
import { listEndpointRecords } from "#shared/webhooks/endpoint-store.ts";
import { invoiceItems } from "../helpers/async-fixtures.ts";
import { invoiceWithRows } from "../helpers/limits-http.ts";
import { type AcceptedJson, acceptOrFail, moveClock, renderQueue } from "../helpers/async-http.ts";
import { armFaults, endAll, expectInvariant, faultHits, sweepNow } from "../helpers/faults.ts";
import {
  createPlanTenant,
  type PlanTenant,
  publishSlowDesign,
  slowParams,
  waitForRenderer,
} from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, settled, startStack } from "../helpers/local-stack.ts";
import { chromiumPidsOf } from "../helpers/process-tree.ts";
import { registerEndpoint, settle } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * The fault-injection suite: each case runs against the real local
 * stack with one named fault and asserts the same invariant (helpers/faults.ts): every
 * accepted file ends `done` or `failed` with a code, pages billed equal pages delivered,
 * no file is answered twice, every event reaches each endpoint once.
 *
 * Faults are armed in the stack's process through its test hooks (AWS calls fail,
 * throttle or kill the process before they are sent). Failed render messages come back
 * after 720 s × 0.005 ≈ 3.6 s; webhook retries run 2,000× faster than their schedule
 * (5 s, 5 min, 30 min, 2 h → 2.5 ms, 0.15 s, 0.9 s, 3.6 s): the receiver-down case waits out three of
 * them, and the order and count of its attempts, not their spacing, are what it checks.
 * Kills of the whole stack (acceptance, mid-batch) are in crash-restart.test.ts.
 */

const ENV = {
  PLATEN_VISIBILITY_SCALE: "0.005",
  PLATEN_WEBHOOK_DELAY_SCALE: "0.0005",
  PLATEN_WEBHOOK_TIMEOUT_MS: "1500",
};

let stack: RunningStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({ env: ENV });
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** A standard-plan workspace with two webhook endpoints (paths `/<name>-a`, `/<name>-b`). */
async function tenantWithEndpoints(name: string): Promise<{ tenant: PlanTenant; paths: string[] }> {
  const tenant = await createPlanTenant(stack, `Faults ${name}`, "standard");
  const paths = [`/${name}-a`, `/${name}-b`];
  for (const path of paths) await registerEndpoint(tenant.workspaceId, { url: receiver.url(path) });
  return { tenant, paths };
}

const accept = (tenant: PlanTenant, n: number, prefix: string, rows?: number) =>
  acceptOrFail(stack, tenant.appKey, "multiple", {
    designId: tenant.invoiceId,
    version: 1,
    contents: invoiceItems(n, prefix).map((item) => (rows ? { ...item, params: invoiceWithRows(rows) } : item)),
  });

/**
 * Accepts `n` files under `rules` (invoices of `rows` 明細 rows when given: several pages each),
 * waits for the end and checks the invariant and that the fault fired.
 */
async function runCase(name: string, rules: Parameters<typeof armFaults>[1], n = 4, rows?: number) {
  const { tenant, paths } = await tenantWithEndpoints(name);
  await armFaults(stack, rules);
  try {
    const accepted = await accept(tenant, n, name, rows);
    const ended = await endAll(stack, tenant.appKey, [accepted]);
    for (const path of paths) await receiver.waitFor(path, 1, 30_000);
    expect(
      (await faultHits(stack)).every((hits) => hits > 0),
      "the fault fired",
    ).toBe(true);
    await settled(stack);
    await settle();
    await expectInvariant(stack, tenant.workspaceId, ended, { receiver, paths });
    return ended;
  } finally {
    await armFaults(stack, []);
  }
}

describe("fault injection: every file ends once, pages billed = delivered, one event per endpoint", () => {
  it("S3 put failure: the first two PDF uploads fail; their files are retried and all end done", async () => {
    const [ended] = await runCase("s3", [
      { service: "s3", command: "PutObjectCommand", detail: "files/", action: "fail", times: 2 },
    ]);
    expect(ended!.ended.body.status).toBe("completed");
    expect(ended!.ended.body.files).toHaveLength(4);
  }, 120_000);

  it("DynamoDB throttling: three settles of file records are throttled; retried, all end done", async () => {
    const [ended] = await runCase("throttle", [
      { service: "dynamodb", command: "UpdateCommand", target: "files", action: "throttle", times: 3 },
    ]);
    expect(ended!.ended.body.files).toHaveLength(4);
  }, 120_000);

  it("a page correction (PAGES# write) fails once: the file is retried and counted exactly once", async () => {
    // Documents of several pages: a one-page document is counted by its reservation and has no correction.
    const rules: Parameters<typeof armFaults>[1] = [
      { service: "dynamodb", command: "UpdateCommand", target: "usage", detail: "#marker", action: "fail", times: 1 },
    ];
    const [ended] = await runCase("pages", rules, 4, 60);
    expect(ended!.ended.body.files.every((f) => (f.pageCount ?? 0) > 1)).toBe(true);
    expect(ended!.ended.body.files).toHaveLength(4);
  }, 120_000);

  it("duplicate SQS delivery: every render message is sent twice; each file is rendered, counted and announced once", async () => {
    const { tenant, paths } = await tenantWithEndpoints("dup");
    const accepted = await accept(tenant, 4, "dup");
    const queue = renderQueue(stack);
    try {
      await queue.sendBatch(
        accepted.files.map((f) => ({
          workspaceId: tenant.workspaceId,
          requestId: accepted.requestId,
          fileId: f.fileId,
        })),
      );
    } finally {
      queue.close();
    }
    const ended = await endAll(stack, tenant.appKey, [accepted]);
    for (const path of paths) await receiver.waitFor(path, 1);
    await settled(stack);
    await settle(1500);
    await expectInvariant(stack, tenant.workspaceId, ended, { receiver, paths });
  }, 120_000);

  it("Chromium crash mid-render: the browsers are killed while they render; the files are retried and end done", async () => {
    const { tenant, paths } = await tenantWithEndpoints("chromium");
    const slow = await publishSlowDesign(stack, tenant.workspaceId);
    const contents = Array.from({ length: 3 }, (_, i) => ({ fileName: `slow-${i}`, params: slowParams(150) }));
    const accepted: AcceptedJson = await acceptOrFail(stack, tenant.appKey, "multiple", {
      designId: slow.id,
      version: slow.version,
      contents,
    });
    const busy = await waitForRenderer(stack, (s) => s.busy > 0, 30_000);
    expect(busy.busy).toBeGreaterThan(0);
    const killed = chromiumPidsOf(stack.pid);
    expect(killed.length).toBeGreaterThan(0);
    for (const pid of killed) process.kill(pid, "SIGKILL");
    const ended = await endAll(stack, tenant.appKey, [accepted], 120_000);
    for (const path of paths) await receiver.waitFor(path, 1, 30_000);
    await settled(stack);
    await settle();
    await expectInvariant(stack, tenant.workspaceId, ended, { receiver, paths });
  }, 180_000);

  it("webhook receiver down for the first hour: attempts at 5 s, 5 min and 35 min fail (503); the one at 2 h 35 min delivers, once", async () => {
    const { tenant, paths } = await tenantWithEndpoints("down");
    for (const path of paths) receiver.answer(path, (n) => (n <= 3 ? { status: 503 } : { status: 200 }));
    const accepted = await accept(tenant, 2, "down");
    const ended = await endAll(stack, tenant.appKey, [accepted]);
    for (const path of paths) await receiver.waitFor(path, 4, 45_000);
    await settle(1500);
    for (const path of paths)
      expect(receiver.at(path).map((w) => w.body?.requestId)).toEqual(Array(4).fill(accepted.requestId));
    // Four attempts of one event: the invariant counts deliveries that succeeded.
    await expectInvariant(stack, tenant.workspaceId, ended);
  }, 120_000);

  it("the webhook queue fails during a completion: the event stays in the outbox and the sweeper's relay delivers it, once per endpoint", async () => {
    const { tenant, paths } = await tenantWithEndpoints("outbox");
    await armFaults(stack, [
      { service: "sqs", command: "SendMessageBatchCommand", target: "webhook", action: "fail", times: 1 },
    ]);
    try {
      const accepted = await accept(tenant, 2, "outbox");
      const ended = await endAll(stack, tenant.appKey, [accepted]);
      await settled(stack);
      expect(await faultHits(stack)).toEqual([1]);
      await settle(1500);
      for (const path of paths) expect(receiver.at(path)).toHaveLength(0);
      // Not yet due (the relay waits 60 s for the first try to finish), then due.
      expect((await sweepNow(stack)).relayed).toBe(0);
      await moveClock(stack, 61_000);
      expect((await sweepNow(stack)).relayed).toBe(1);
      for (const path of paths) await receiver.waitFor(path, 1);
      expect((await sweepNow(stack)).relayed).toBe(0);
      await settle(1500);
      await expectInvariant(stack, tenant.workspaceId, ended, { receiver, paths });
      for (const path of paths)
        expect(receiver.at(path).map((w) => [w.body?.event, w.body?.requestId])).toEqual([
          ["file.completed", accepted.requestId],
        ]);
    } finally {
      await moveClock(stack, 0);
      await armFaults(stack, []);
    }
  }, 120_000);
});

describe("a malformed webhook-queue message", () => {
  it("fails alone: the dispatcher reports only it, and the good delivery in its batch is made", async () => {
    const { tenant, paths } = await tenantWithEndpoints("batch");
    const accepted = await accept(tenant, 1, "batch");
    await endAll(stack, tenant.appKey, [accepted]);
    await receiver.waitFor(paths[0]!, 1);
    // A second delivery of the same event, created but not queued: the batch below makes it.
    const endpointId = (await listEndpointRecords(tenant.workspaceId)).find((e) =>
      e.url.endsWith(paths[1]!),
    )!.endpointId;
    const timestamp = new Date().toISOString();
    const record = {
      deliveryId: `dlv_batchtest${Date.now()}`,
      endpointId,
      event: "file.completed" as const,
      timestamp,
      workspaceId: tenant.workspaceId,
      requestId: accepted.requestId,
      designId: tenant.invoiceId,
      version: 1,
      fileIds: accepted.files.map((f) => f.fileId),
      status: "pending" as const,
      attemptsDone: 0,
      scheduledAttempt: 1,
      attempts: [],
      createdAt: timestamp,
      updatedAt: timestamp,
      expiresAt: Math.floor(Date.now() / 1000) + 86400,
    };
    expect(await createDelivery(record)).toBe(true);
    const good = { deliveryId: record.deliveryId, endpointId, createdAt: timestamp, attempt: 1 };
    const { handler } = await import("../../functions/dispatch/deliver-webhook.ts");
    const records = [
      { messageId: "bad-json", body: "{not json" },
      { messageId: "good", body: JSON.stringify(good) },
      { messageId: "bad-shape", body: JSON.stringify({ deliveryId: 42 }) },
    ];
    const result = await handler({ Records: records } as unknown as Parameters<typeof handler>[0]);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(["bad-json", "bad-shape"]);
    const hits = await receiver.waitFor(paths[1]!, 2);
    expect(hits.map((h) => h.body?.deliveryId)).toContain(record.deliveryId);
  }, 60_000);
});
