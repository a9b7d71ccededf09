import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAppKey } from "#shared/workspaces/app-key.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { STORE_DEADLINE_SECONDS } from "#shared/generation/sync/index.ts";
import { type FileRecord, getPdf, pdfObjectKey, putFileRecords, putPdf } from "#shared/generation/store/index.ts";
import { newId } from "#shared/ids.ts";
import { createWorkspace } from "#shared/workspaces/workspace-store.ts";
import { download, errorOf, getStatus, moveClock } from "../helpers/async-http.ts";
import { eventsOf } from "../helpers/async-tables.ts";
import { type RunningStack, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { fileRecordsOfWorkspace, useStackEmulators } from "../helpers/stack-clients.ts";
import { createSeededLike, createTenant, sampleParams } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, syncCaller } from "../helpers/sync-http.ts";
import { registerEndpoint } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Sync generation answers as soon as the PDFs exist and stores them afterwards
 * (sync-generation.ts): records are written ahead as `storing`, readers wait for them, and a
 * file whose storing never finished reads as interrupted. Admission runs the key read and
 * the rate-limit write side by side for a key seen before, without changing which error wins.
 */

let stack: SharedStack;
let demo: RunningStack["localJson"]["workspaces"][number];
let invoiceId: string;

beforeAll(async () => {
  stack = await sharedStack();
  demo = await createSeededLike(stack, "Store behind");
  invoiceId = demo.designs.find((d) => d.label.includes("請求書"))!.id;
  useStackEmulators(stack.dataDir);
});

afterAll(async () => {
  await stack?.release();
});

const invoice = (fileName: string) => ({ fileName, params: sampleParams("invoice-ja") });

/** A sync file as generate-sync writes it ahead, for the store that has not happened yet. */
function storingRecord(requestId: string, index: number, mode: "single" | "multiple"): FileRecord {
  const now = Math.floor(Date.now() / 1000);
  const fileId = newId();
  return {
    requestId,
    fileId,
    workspaceId: demo.id,
    designId: invoiceId,
    version: 1,
    fileName: `storing-${index}`,
    index,
    status: "storing",
    source: "sync",
    mode,
    shareType: "workspace",
    s3Key: pdfObjectKey(demo.id, requestId, fileId),
    createdAt: new Date().toISOString(),
    storeBy: now + STORE_DEADLINE_SECONDS,
    expiresAt: now + 30 * 86400,
  };
}

describe("sync files are stored after the answer", () => {
  it("a download and a status read right after the answer get the stored file", async () => {
    const sync = syncCaller(stack, demo.appKey);
    for (let round = 0; round < 5; round++) {
      const res = await sync("single", { designId: invoiceId, version: 1, content: invoice(`at-once-${round}`) });
      expect(res.status).toBe(200);
      const pdf = Buffer.from(await res.arrayBuffer());
      const requestId = res.headers.get("request-id")!;
      const [file] = decodeFileMapping(res.headers.get("x-file-mapping"));
      // No pause: the store may still be running.
      const [got, status] = await Promise.all([
        download(stack, demo.appKey, requestId, file!.fileId),
        getStatus(stack, demo.appKey, requestId),
      ]);
      expect(got.status).toBe(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(pdf)).toBe(true);
      expect([status.status, status.body.status, status.body.files.map((f) => f.fileId)]).toEqual([
        200,
        "completed",
        [file!.fileId],
      ]);
    }
  });

  it("storing commits each file by its PDF (no record write): the first read finds it done and records that", async () => {
    const res = await syncCaller(stack, demo.appKey)("multiple", {
      designId: invoiceId,
      version: 1,
      contents: [invoice("commit-a"), invoice("commit-b")],
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get("request-id")!;
    const fileIds = decodeFileMapping(res.headers.get("x-file-mapping")).map((f) => f.fileId);
    await settled(stack);
    const raw = async () =>
      ((await fileRecordsOfWorkspace(demo.id)) as unknown as FileRecord[])
        .filter((r) => r.requestId === requestId)
        .sort((a, b) => a.index - b.index);
    const before = await raw();
    expect(before.map((r) => [r.fileId, r.status])).toEqual(fileIds.map((id) => [id, "storing"]));
    for (const r of before) expect((await getPdf(r.s3Key!)).subarray(0, 5).toString()).toBe("%PDF-");

    const status = await getStatus(stack, demo.appKey, requestId);
    expect([status.body.status, status.body.files.map((f) => f.fileId)]).toEqual(["completed", fileIds]);
    const after = await raw();
    expect(after.map((r) => [r.status, r.pageCount, r.storeBy])).toEqual(fileIds.map(() => ["done", 1, undefined]));
    for (const r of after) expect(r.bytes).toBe((await getPdf(r.s3Key!)).length);
    // Nobody receives its event (the demo workspace has no endpoint): nothing is written for it.
    expect(await eventsOf(requestId)).toEqual([]);
  });

  it("with an endpoint registered before the request, file.completed goes through the outbox to it", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const tenant = await createTenant(stack, "Sync outbox");
      await registerEndpoint(tenant.workspaceId, { url: receiver.url("/sync") });
      const res = await syncCaller(stack, tenant.appKey)("multiple", {
        designId: tenant.invoiceId,
        version: 1,
        contents: [invoice("outbox-a"), invoice("outbox-b")],
      });
      expect(res.status).toBe(200);
      const requestId = res.headers.get("request-id")!;
      const fileIds = decodeFileMapping(res.headers.get("x-file-mapping")).map((f) => f.fileId);
      const [hook] = await receiver.waitFor("/sync", 1);
      expect([hook!.body.event, hook!.body.requestId]).toEqual(["file.completed", requestId]);
      await settled(stack);
      const [event] = await eventsOf(requestId);
      expect(event).toMatchObject({ sk: "EVENT#file.completed", fileIds });
      expect(event).not.toHaveProperty("activeShard"); // queued: out of the outbox
    } finally {
      await receiver.close();
    }
  });

  it("a reader waits while a file is storing and serves it once stored", async () => {
    const requestId = newId();
    const record = storingRecord(requestId, 0, "single");
    await putFileRecords([record]);
    const pdf = await getPdf(await anyStoredPdfKey());
    const reading = download(stack, demo.appKey, requestId, record.fileId);
    await new Promise((r) => setTimeout(r, 300));
    await putPdf(record.s3Key!, pdf, { pageCount: 1, completedAt: new Date().toISOString() });
    const res = await reading;
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it("a file still storing after the wait is 409 FILE_NOT_READY; past its deadline it reads as interrupted", async () => {
    const requestId = newId();
    const [storing, stored] = [storingRecord(requestId, 0, "multiple"), storingRecord(requestId, 1, "multiple")];
    const pdf = await getPdf(await anyStoredPdfKey());
    await putPdf(stored.s3Key!, pdf);
    await putFileRecords([storing, { ...stored, status: "done", pageCount: 1, bytes: pdf.length }]);

    const notReady = await errorOf(await download(stack, demo.appKey, requestId, storing.fileId));
    expect([notReady.status, notReady.body.code, notReady.headers.get("retry-after")]).toEqual([
      409,
      "FILE_NOT_READY",
      "2",
    ]);
    expect((await getStatus(stack, demo.appKey, requestId)).body.status).toBe("processing");

    await moveClock(stack, (STORE_DEADLINE_SECONDS + 1) * 1000);
    try {
      const interrupted = await errorOf(await download(stack, demo.appKey, requestId, storing.fileId));
      expect([interrupted.status, interrupted.body.code]).toEqual([422, "FILE_GENERATION_FAILED"]);
      expect(interrupted.body.message).toContain("GENERATION_INTERRUPTED");
      const status = await getStatus(stack, demo.appKey, requestId);
      expect([status.body.status, status.body.files.map((f) => f.fileId)]).toEqual(["completed", [stored.fileId]]);
      expect(status.body.failedFiles).toEqual([
        expect.objectContaining({ fileId: storing.fileId, code: "GENERATION_INTERRUPTED" }),
      ]);
      // The client got every file in its answer; a ZIP of what was kept would silently miss one.
      const zip = await errorOf(await download(stack, demo.appKey, requestId));
      expect([zip.status, zip.body.code]).toEqual([422, "FILE_GENERATION_FAILED"]);
      expect(zip.body.message).toContain("GENERATION_INTERRUPTED");
      const kept = await download(stack, demo.appKey, requestId, stored.fileId);
      expect(kept.status).toBe(200);
    } finally {
      await moveClock(stack, 0);
    }
  });
});

describe("the site's file view of a sync file (share.url opened at once)", () => {
  const site = () => `http://127.0.0.1:${stack.port}`;
  const offersPdf = (page: string) => page.includes('id="download"') && page.includes('id="open-pdf"');

  it("right after each of 20 sync answers, a public file's page offers the PDF, and its download is the answer's bytes", async () => {
    const sync = syncCaller(stack, demo.appKey);
    for (let round = 0; round < 20; round++) {
      const content = { ...invoice(`public-${round}`), shareType: "03" };
      const res = await sync("single", { designId: invoiceId, version: 1, content });
      expect(res.status).toBe(200);
      const pdf = Buffer.from(await res.arrayBuffer());
      const [file] = decodeFileMapping(res.headers.get("x-file-mapping"));
      const path = `/file/${res.headers.get("request-id")}/${file!.fileId}`;
      // No pause: the store may still be running.
      const [view, bytes] = await Promise.all([fetch(`${site()}${path}`), fetch(`${site()}${path}/download`)]);
      expect(view.status).toBe(200);
      expect(offersPdf(await view.text()), `round ${round}`).toBe(true);
      expect(bytes.status).toBe(200);
      expect(Buffer.from(await bytes.arrayBuffer()).equals(pdf)).toBe(true);
    }
  });

  it("a page opened while the file is storing waits for it and offers the PDF", async () => {
    const record = { ...storingRecord(newId(), 0, "single"), shareType: "public" as const };
    await putFileRecords([record]);
    const pdf = await getPdf(await anyStoredPdfKey());
    const [viewing, previewing] = [
      fetch(`${site()}/file/${record.requestId}/${record.fileId}`),
      fetch(`${site()}/file/${record.requestId}/${record.fileId}/preview`),
    ];
    await new Promise((r) => setTimeout(r, 300));
    await putPdf(record.s3Key!, pdf);
    await putFileRecords([
      { ...record, status: "done", pageCount: 1, bytes: pdf.length, completedAt: new Date().toISOString() },
    ]);
    const [view, preview] = await Promise.all([viewing, previewing]);
    expect(view.status).toBe(200);
    expect(view.headers.get("refresh")).toBeNull();
    expect(offersPdf(await view.text())).toBe(true);
    expect([preview.status, preview.headers.get("content-type")]).toEqual([200, "application/pdf"]);
    expect(Buffer.from(await preview.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it("a file still storing after the wait shows a short 'being prepared' page that reloads itself", async () => {
    const record = { ...storingRecord(newId(), 0, "single"), shareType: "public" as const };
    await putFileRecords([record]);
    const path = `/file/${record.requestId}/${record.fileId}`;
    const view = await fetch(`${site()}${path}`, { headers: { "accept-language": "en" } });
    expect([view.status, view.headers.get("refresh")]).toEqual([200, "2"]);
    const page = await view.text();
    expect(page).toContain('role="status"');
    expect(page).toContain("This page reloads itself");
    expect(offersPdf(page)).toBe(false);
    const download = await fetch(`${site()}${path}/download`, { redirect: "manual" });
    expect([download.status, download.headers.get("location")]).toEqual([303, path]);
    // Stored now: the page it reloads offers the PDF, with no more reloading.
    const pdf = await getPdf(await anyStoredPdfKey());
    await putPdf(record.s3Key!, pdf);
    await putFileRecords([{ ...record, status: "done", pageCount: 1, bytes: pdf.length }]);
    const again = await fetch(`${site()}${path}`);
    expect(again.headers.get("refresh")).toBeNull();
    expect(offersPdf(await again.text())).toBe(true);
  });
});

describe("a sync single whose store never finished", () => {
  it("reads as failed with GENERATION_INTERRUPTED once its deadline passed: status and download say so", async () => {
    const requestId = newId();
    const record = storingRecord(requestId, 0, "single");
    await putFileRecords([record]);
    await moveClock(stack, (STORE_DEADLINE_SECONDS + 1) * 1000);
    try {
      const status = await getStatus(stack, demo.appKey, requestId);
      expect([
        status.status,
        status.body.status,
        status.body.error?.code,
        status.body.failedFiles?.[0]?.fileId,
      ]).toEqual([200, "failed", "GENERATION_INTERRUPTED", record.fileId]);
      const file = await errorOf(await download(stack, demo.appKey, requestId, record.fileId));
      expect([file.status, file.body.code]).toEqual([422, "FILE_GENERATION_FAILED"]);
      expect(file.body.message).toContain("GENERATION_INTERRUPTED");
    } finally {
      await moveClock(stack, 0);
    }
  });
});

describe("admission of a key seen before", () => {
  it("a key revoked after it was remembered is 401, before validation, even with a bad body", async () => {
    const { appKey } = await createWorkspace({ name: "Revoked", plan: "standard" }, systemClock);
    const sync = syncCaller(stack, appKey);
    // Admitted once (the design is Demo's, so: not found here), which remembers the key.
    expect((await sync("single", { designId: invoiceId, version: 1, content: invoice("first") })).status).toBe(404);
    await awsClients().ddb.send(
      new DeleteCommand({ TableName: config().tables.workspaces, Key: { pk: `KEY#${hashAppKey(appKey)}`, sk: "KEY" } }),
    );
    for (const body of [{ designId: invoiceId, version: 1, content: { fileName: "", params: [] } }, "not json"]) {
      const refused = await errorOf(await sync("single", body));
      expect([refused.status, refused.body.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    }
  });

  it("a key used again is answered like the first time: same PDF headers, same errors", async () => {
    const sync = syncCaller(stack, demo.appKey);
    const bad = await errorOf(
      await sync("single", { designId: invoiceId, version: 1, content: { fileName: "a/b", params: {} } }),
    );
    expect([bad.status, bad.body.code]).toEqual([400, "FILE_NAME_INVALID"]);
    const missing = await errorOf(await sync("single", { designId: invoiceId, version: 99, content: invoice("v99") }));
    expect([missing.status, missing.body.code]).toEqual([404, "DESIGN_VERSION_NOT_FOUND"]);
    const ok = await sync("single", { designId: invoiceId, version: 1, content: invoice("again") });
    expect([ok.status, ok.headers.get("x-page-count"), ok.headers.get("content-type")]).toEqual([
      200,
      "1",
      "application/pdf",
    ]);
    await ok.arrayBuffer();
  });
});

/** Some PDF the stack stored earlier in this file (the first test's), to stand in for a fresh render. */
async function anyStoredPdfKey(): Promise<string> {
  const records = await fileRecordsOfWorkspace(demo.id);
  const done = records.find((r) => r.status === "done" && typeof r.s3Key === "string");
  if (!done) throw new Error("no stored PDF yet");
  return done.s3Key as string;
}
