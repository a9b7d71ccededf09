import { DeleteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { getJob } from "#shared/generation/store/index.ts";
import { INVOICE, mismatchedItem } from "../helpers/async-fixtures.ts";
import { pollStatus, renderQueue } from "../helpers/async-http.ts";
import { type QueuedRequest, writeQueuedRequest } from "../helpers/async-queued.ts";
import { eventsOf } from "../helpers/async-tables.ts";
import {
  adminUsage,
  createPlanTenant,
  type PlanTenant,
  publishSlowDesign,
  rendererStats,
  slowDesign,
  slowParams,
} from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { sampleLabel, sampleParams } from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";
import { registerEndpoint } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * The render worker takes an SQS batch as a whole: one read of its file records, each
 * file rendered and settled on its own, one count per request. The requests are written
 * straight into the stores and their messages sent in one call, so one receive of the
 * worker (batch size 5) gets exactly the messages the test chose.
 */

let stack: RunningStack;
let queue: ReturnType<typeof renderQueue>;
/** Every tenant's endpoint (a path per workspace): an event is recorded only when an endpoint receives it. */
let receiver: WebhookReceiver;
/** A real 4-page PDF for a file a test writes as already rendered. */
let pdf4: Buffer;

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_VISIBILITY_SCALE: "0.005" } });
  useStackEmulators(stack.dataDir);
  queue = renderQueue(stack);
  receiver = await startWebhookReceiver();
  const demo = stack.localJson.workspaces[0]!;
  const slow = await publishSlowDesign(stack, demo.id);
  const res = await syncCaller(stack, demo.appKey)("single", {
    designId: slow.id,
    version: slow.version,
    content: { fileName: "seed", params: slowParams(4) },
  });
  expect([res.status, res.headers.get("x-page-count")]).toEqual([200, "4"]);
  pdf4 = Buffer.from(await res.arrayBuffer());
});

afterAll(async () => {
  queue?.close();
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** A fresh standard-plan workspace (its own page count) with the invoice and the n-page design. */
async function tenantWithDesigns(name: string) {
  const tenant = await createPlanTenant(stack, name, "standard");
  const slow = await publishSlowDesign(stack, tenant.workspaceId);
  await registerEndpoint(tenant.workspaceId, { url: receiver.url(`/${tenant.workspaceId}`) });
  return {
    tenant,
    invoice: { designId: tenant.invoiceId, version: 1, label: sampleLabel(INVOICE) },
    pages: { designId: slow.id, version: slow.version, label: slowDesign.label },
  };
}

/** Sends the messages in one call, waits for the requests to end and the queue to drain. */
async function runBatch(
  tenant: PlanTenant,
  requests: QueuedRequest[],
  messages: QueuedRequest["messages"],
  timeoutMs = 30_000,
) {
  await queue.drained();
  const before = await rendererStats(stack);
  const messageIds = await queue.sendBatch(messages);
  const answers = await Promise.all(requests.map((r) => pollStatus(stack, tenant.appKey, r.requestId, { timeoutMs })));
  await queue.drained(timeoutMs);
  return { answers, messageIds, renders: (await rendererStats(stack)).renders - before.renders };
}

/** The message ids of each "will retry" line the worker logged. */
const retriedBatches = () =>
  stack
    .output()
    .split("\n")
    .filter((line) => line.includes("render failed, will retry"))
    .map((line) => (JSON.parse(line) as { messageIds: string[] }).messageIds);

/** Each request counted every file and ended once (one file.completed event, settled === total). */
async function expectFinalizedOnce(request: QueuedRequest): Promise<void> {
  const job = await getJob(request.requestId);
  expect({ status: job?.status, settled: job?.settled, total: job?.total }).toEqual({
    status: "completed",
    settled: request.messages.length,
    total: request.messages.length,
  });
  expect((await eventsOf(request.requestId)).map((e) => e.sk)).toEqual(["EVENT#file.completed"]);
  // Its endpoint notified once: the deliveries of one finalization.
  const notified = () => receiver.at(`/${job!.workspaceId}`).filter((w) => w.body.requestId === request.requestId);
  for (const deadline = Date.now() + 15_000; !notified().length && Date.now() < deadline; )
    await new Promise((r) => setTimeout(r, 25));
  expect(notified().map((w) => w.body.event)).toEqual(["file.completed"]);
}

describe("one SQS batch of render messages", () => {
  it("files of two requests and a duplicate message: both finalized once, pages counted exactly, the duplicate renders nothing", async () => {
    const { tenant, invoice, pages } = await tenantWithDesigns("Batch two requests");
    const a = await writeQueuedRequest(tenant.workspaceId, pages, [
      { fileName: "two", params: slowParams(2) },
      { fileName: "three", params: slowParams(3) },
    ]);
    const b = await writeQueuedRequest(tenant.workspaceId, invoice, [
      { fileName: "ok", params: sampleParams(INVOICE) },
      { fileName: "bad", params: mismatchedItem("bad").params as Record<string, unknown> },
    ]);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(4); // one page reserved per file

    const { answers, renders } = await runBatch(tenant, [a, b], [...a.messages, ...b.messages, a.messages[0]!]);
    expect(answers.map((s) => s.body.status)).toEqual(["completed", "completed"]);
    expect(answers[0]!.body.files.map((f) => [f.fileName, f.pageCount])).toEqual([
      ["two", 2],
      ["three", 3],
    ]);
    expect(answers[1]!.body.files.map((f) => [f.fileName, f.pageCount])).toEqual([["ok", 1]]);
    expect(answers[1]!.body.failedFiles?.map((f) => [f.fileName, f.code])).toEqual([["bad", "PARAMS_TYPE_MISMATCH"]]);
    // The bad params fail before Chromium; the duplicate of "two" is no second render.
    expect(renders).toBe(3);
    await expectFinalizedOnce(a);
    await expectFinalizedOnce(b);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(2 + 3 + 1 + 0);
    expect(retriedBatches()).toEqual([]);
  });

  it("a file rendered by a worker that died before counting it: its replay in a batch counts it with its real pages, once", async () => {
    const { tenant, pages } = await tenantWithDesigns("Batch replay");
    const frozen = await writeQueuedRequest(tenant.workspaceId, pages, [
      { fileName: "rendered", params: slowParams(4), settled: { pdf: pdf4, pageCount: 4 } },
      { fileName: "queued", params: slowParams(2) },
    ]);
    // Delivered twice, as SQS may: the replay is counted once.
    const { answers, renders } = await runBatch(tenant, [frozen], [...frozen.messages, frozen.messages[0]!]);
    expect(answers[0]!.body.files.map((f) => [f.fileName, f.pageCount])).toEqual([
      ["rendered", 4],
      ["queued", 2],
    ]);
    expect(renders).toBe(1);
    await expectFinalizedOnce(frozen);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(4 + 2);

    // Once more after the end: nothing changes.
    await runBatch(tenant, [frozen], frozen.messages);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(4 + 2);
    await expectFinalizedOnce(frozen);
    expect(retriedBatches()).toEqual([]);
  });

  it("failures are retried alone: a file that cannot be read, every message of a request whose count fails; the other request completes", async () => {
    const { tenant, invoice } = await tenantWithDesigns("Batch failures");
    const item = { fileName: "ok", params: sampleParams(INVOICE) };
    const ok = await writeQueuedRequest(tenant.workspaceId, invoice, [item, { ...item, fileName: "ok-2" }]);
    // Its job is gone, so counting its files fails (after they rendered and settled).
    const uncountable = await writeQueuedRequest(tenant.workspaceId, invoice, [item, { ...item, fileName: "x-2" }]);
    await awsClients().ddb.send(
      new DeleteCommand({
        TableName: config().tables.requests,
        Key: { pk: `REQ#${uncountable.requestId}`, sk: "JOB" },
      }),
    );
    // Its params are neither in the record nor in S3: a read error, retried until dead-lettered.
    const unreadable = await writeQueuedRequest(tenant.workspaceId, invoice, [item]);
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.files,
        Key: { pk: `REQ#${unreadable.requestId}`, sk: `FILE#${unreadable.messages[0]!.fileId}` },
        UpdateExpression: "REMOVE paramsJson",
      }),
    );

    const messages = [ok.messages[0]!, ...uncountable.messages, unreadable.messages[0]!, ok.messages[1]!];
    const { answers, messageIds, renders } = await runBatch(tenant, [ok, unreadable], messages, 60_000);
    const [okIds, uncountableIds, unreadableId] = [
      [messageIds[0], messageIds[4]],
      messageIds.slice(1, 3),
      messageIds[3],
    ];
    expect(answers[0]!.body.files.map((f) => f.fileName)).toEqual(["ok", "ok-2"]);
    await expectFinalizedOnce(ok);
    // Dead-lettered after its retries: the DLQ consumer fails the file (see
    // shared/generation/README.md#request-states-and-retention).
    expect(answers[1]!.body.status).toBe("failed");
    expect(answers[1]!.body.failedFiles?.map((f) => f.code)).toEqual(["GENERATION_INTERRUPTED"]);
    // Both messages of the uncountable request were reported together; their retries found
    // the files settled and rendered nothing again.
    const retried = retriedBatches();
    expect(retried.some((ids) => uncountableIds.every((id) => ids.includes(id)))).toBe(true);
    expect(retried.flat()).toEqual(expect.arrayContaining([...uncountableIds, unreadableId]));
    for (const id of okIds) expect(retried.flat()).not.toContain(id);
    expect(renders).toBe(4);
    // Reserved 5; "ok" counted 2 real pages, "unreadable" none; the uncountable request keeps its reservation.
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(2 + 2);
  }, 90_000);
});
