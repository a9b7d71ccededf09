import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFileRecords } from "#shared/generation/store/index.ts";
import { getJob } from "#shared/generation/store/index.ts";
import {
  INVOICE_LABEL,
  invoiceItem,
  invoiceItems,
  invoiceOf,
  keysOf,
  mismatchedItem,
} from "../helpers/async-fixtures.ts";
import {
  type AcceptedJson,
  acceptOrFail,
  download,
  errorOf,
  getStatus,
  moveClock,
  pollStatus,
  renderQueue,
} from "../helpers/async-http.ts";
import { eventsOf } from "../helpers/async-tables.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { parseContentDisposition, syncCaller } from "../helpers/sync-http.ts";
import { registerEndpoint } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * What happens after an async request ended (shared/generation/README.md#request-states-and-retention;
 * OpenAPI getStatus, downloadRequest, downloadFile): a render message delivered again changes nothing and
 * finalizes nothing twice, and the 24-hour job retention and the file retention, walked through by moving the
 * service clock.
 */

type Workspace = RunningStack["localJson"]["workspaces"][number];

let stack: RunningStack;
let demo: Workspace;
let receiver: WebhookReceiver;
let invoice: { designId: string; version: number };
let queue: ReturnType<typeof renderQueue>;

const HOUR = 60 * 60 * 1000;
const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
const single = (content: Record<string, unknown>) => ({ ...invoice, content });
const multiple = (contents: Record<string, unknown>[]) => ({ ...invoice, contents });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_VISIBILITY_SCALE: "0.005" } });
  demo = stack.localJson.workspaces[0]!;
  invoice = { designId: invoiceOf(demo).id, version: invoiceOf(demo).latestVersion };
  useStackEmulators(stack.dataDir);
  queue = renderQueue(stack);
  // An event is recorded (and queued) only when an endpoint receives it.
  receiver = await startWebhookReceiver();
  await registerEndpoint(demo.id, { url: receiver.url("/demo") });
});

afterAll(async () => {
  queue?.close();
  await receiver?.close();
  if (stack) await moveClock(stack, 0).catch(() => undefined);
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

const messagesFor = (accepted: AcceptedJson) =>
  accepted.files.map((f) => ({ workspaceId: demo.id, requestId: accepted.requestId, fileId: f.fileId }));

describe("a render message delivered twice", () => {
  it("after completion: status, completedAt, PDF bytes and file records stay as they were; settled stays at total", async () => {
    const accepted = await acceptOrFail(
      stack,
      demo.appKey,
      "multiple",
      multiple([invoiceItem("dup-a"), invoiceItem("dup-b")]),
    );
    const before = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(before.body.status).toBe("completed");
    const pdfBefore = await bytesOf(await download(stack, demo.appKey, accepted.requestId, accepted.files[0]!.fileId));
    const recordsBefore = await listFileRecords(accepted.requestId);

    for (const msg of messagesFor(accepted)) await queue.send(msg);
    await queue.drained();
    await sleep(1500);

    const after = await getStatus(stack, demo.appKey, accepted.requestId);
    expect(after.body).toEqual(before.body);
    const pdfAfter = await bytesOf(await download(stack, demo.appKey, accepted.requestId, accepted.files[0]!.fileId));
    expect(pdfAfter.equals(pdfBefore)).toBe(true);
    const records = await listFileRecords(accepted.requestId);
    expect(records).toEqual(recordsBefore);
    expect(records.map((r) => r.status)).toEqual(["done", "done"]);
    const job = await getJob(accepted.requestId);
    expect({ settled: job?.settled, total: job?.total, status: job?.status }).toEqual({
      settled: 2,
      total: 2,
      status: "completed",
    });
    expect(job?.completedAt).toBe(before.body.completedAt);
    expect((await eventsOf(accepted.requestId)).map((e) => e.sk)).toEqual(["EVENT#file.completed"]);
  });

  it("while processing: the request is finalized once (settled === total, one file.completed event naming every file)", async () => {
    const accepted = await acceptOrFail(stack, demo.appKey, "multiple", multiple(invoiceItems(8, "race")));
    for (const msg of messagesFor(accepted)) await queue.send(msg);
    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.body.status).toBe("completed");
    expect(done.body).not.toHaveProperty("failedFiles");
    expect(done.body.files.map((f) => f.fileId)).toEqual(accepted.files.map((f) => f.fileId));
    await queue.drained();
    await sleep(1000);

    expect((await getStatus(stack, demo.appKey, accepted.requestId)).body).toEqual(done.body);
    const job = await getJob(accepted.requestId);
    expect({ settled: job?.settled, total: job?.total, status: job?.status }).toEqual({
      settled: 8,
      total: 8,
      status: "completed",
    });
    expect((await listFileRecords(accepted.requestId)).map((r) => r.status)).toEqual(Array(8).fill("done"));
    const events = await eventsOf(accepted.requestId);
    expect(events.map((e) => e.sk)).toEqual(["EVENT#file.completed"]);
    expect([...events[0]!.fileIds].sort()).toEqual(accepted.files.map((f) => f.fileId).sort());
    const notified = receiver.at("/demo").filter((w) => w.body.requestId === accepted.requestId);
    expect(notified.map((w) => w.body.event)).toEqual(["file.completed"]);
  });
});

describe("24-hour job retention and file retention (moved clock)", () => {
  let completed: AcceptedJson;
  let partial: AcceptedJson;
  let allFailed: AcceptedJson;
  let failedSingle: AcceptedJson;
  let syncRequestId: string;
  let syncFileId: string;

  beforeAll(async () => {
    [completed, partial, allFailed, failedSingle] = await Promise.all([
      acceptOrFail(stack, demo.appKey, "multiple", multiple([invoiceItem("keep-1"), invoiceItem("keep-2")])),
      acceptOrFail(stack, demo.appKey, "multiple", multiple([invoiceItem("part-ok"), mismatchedItem("part-bad")])),
      acceptOrFail(
        stack,
        demo.appKey,
        "multiple",
        multiple([mismatchedItem("all-bad-1"), mismatchedItem("all-bad-2")]),
      ),
      acceptOrFail(stack, demo.appKey, "single", single(mismatchedItem("single-bad"))),
    ]);
    const sync = await syncCaller(stack, demo.appKey)("single", single(invoiceItem("sync-one")), {
      query: "?response=json",
    });
    expect(sync.status).toBe(200);
    const syncBody = (await sync.json()) as { requestId: string; files: { fileId: string }[] };
    syncRequestId = syncBody.requestId;
    syncFileId = syncBody.files[0]!.fileId;
    for (const r of [completed, partial, allFailed, failedSingle]) await pollStatus(stack, demo.appKey, r.requestId);
  }, 90_000);

  afterAll(async () => {
    await moveClock(stack, 0);
  });

  /**
   * A status rebuilt from file records (see shared/generation/README.md#request-states-and-retention): designId
   * and files only.
   */
  async function expectRebuiltCompleted(
    requestId: string,
    files: { fileId: string; fileName: string }[],
  ): Promise<void> {
    const answer = await getStatus(stack, demo.appKey, requestId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.headers.get("retry-after")).toBeNull();
    expect(keysOf(answer.body)).toEqual(["designId", "files", "requestId", "status"]);
    expect(answer.body).toMatchObject({ requestId, status: "completed", designId: invoice.designId });
    for (const f of answer.body.files) expect(keysOf(f)).toEqual(["downloadPath", "fileId", "fileName"]);
    expect(answer.body.files).toEqual(
      files.map((f) => ({ ...f, downloadPath: `/v1/file/download/${requestId}/${f.fileId}` })),
    );
  }

  async function expectNotFound(requestId: string, fileId: string): Promise<void> {
    const status = await errorOf(
      await fetch(`${stack.baseUrl}/file/status/${requestId}`, { headers: { appkey: demo.appKey } }),
    );
    expect([status.status, status.body.code], `status of ${requestId}`).toEqual([404, "REQUEST_NOT_FOUND"]);
    const whole = await errorOf(await download(stack, demo.appKey, requestId));
    expect([whole.status, whole.body.code], `download of ${requestId}`).toEqual([404, "FILE_NOT_FOUND"]);
    const one = await errorOf(await download(stack, demo.appKey, requestId, fileId));
    expect([one.status, one.body.code], `file download of ${requestId}`).toEqual([404, "FILE_NOT_FOUND"]);
  }

  it("a sync request answers `completed` from its file records, also within 24 h", async () => {
    await expectRebuiltCompleted(syncRequestId, [{ fileId: syncFileId, fileName: "sync-one" }]);
  });

  it("+23 h: the job records still answer (version, pageCount, createdAt, completedAt)", async () => {
    await moveClock(stack, 23 * HOUR);
    const answer = await getStatus(stack, demo.appKey, completed.requestId);
    expect(answer.body).toMatchObject({
      status: "completed",
      version: invoice.version,
      createdAt: expect.any(String),
      completedAt: expect.any(String),
    });
    expect(answer.body.files[0]!.pageCount).toBeGreaterThanOrEqual(1);
    expect((await getStatus(stack, demo.appKey, failedSingle.requestId)).body.error?.code).toBe("PARAMS_TYPE_MISMATCH");
  });

  it("+25 h: completed requests are rebuilt from file records and still download; an all-failed multiple is `failed` without failedFiles; a failed single is gone", async () => {
    await moveClock(stack, 25 * HOUR);
    await expectRebuiltCompleted(
      completed.requestId,
      completed.files.map((f) => ({ fileId: f.fileId, fileName: f.fileName })),
    );
    await expectRebuiltCompleted(partial.requestId, [{ fileId: partial.files[0]!.fileId, fileName: "part-ok" }]);
    await expectRebuiltCompleted(syncRequestId, [{ fileId: syncFileId, fileName: "sync-one" }]);

    const zip = await download(stack, demo.appKey, completed.requestId);
    expect(zip.status).toBe(200);
    expect(parseContentDisposition(zip.headers.get("content-disposition")).filenameStar).toBe(
      `${INVOICE_LABEL}_${completed.requestId}.zip`,
    );
    expect((await download(stack, demo.appKey, completed.requestId, completed.files[1]!.fileId)).status).toBe(200);

    const failed = await getStatus(stack, demo.appKey, allFailed.requestId);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({
      requestId: allFailed.requestId,
      status: "failed",
      designId: invoice.designId,
      error: { code: "FILE_GENERATION_FAILED" },
    });
    expect(failed.body).not.toHaveProperty("failedFiles");
    expect(failed.body).not.toHaveProperty("version");
    expect(failed.body).not.toHaveProperty("completedAt");
    const failedDownload = await errorOf(await download(stack, demo.appKey, allFailed.requestId));
    expect([failedDownload.status, failedDownload.body.code]).toEqual([422, "FILE_GENERATION_FAILED"]);

    await expectNotFound(failedSingle.requestId, failedSingle.files[0]!.fileId);
  });

  it("+31 days: the files have expired, so status and downloads are 404", async () => {
    await moveClock(stack, 31 * 24 * HOUR);
    await expectNotFound(completed.requestId, completed.files[0]!.fileId);
    await expectNotFound(partial.requestId, partial.files[0]!.fileId);
    await expectNotFound(allFailed.requestId, allFailed.files[0]!.fileId);
    await expectNotFound(syncRequestId, syncFileId);
  });
});
