import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INVOICE,
  INVOICE_LABEL,
  ISO_8601,
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
  hostOf,
  pollStatus,
  postAsync,
} from "../helpers/async-http.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { compactPdfText, inspectPdf } from "../helpers/pdf-inspect.ts";
import { sampleParams } from "../helpers/sync-fixtures.ts";
import { ID_16, parseContentDisposition, RFC5987_VALUE_CHARS, syncCaller } from "../helpers/sync-http.ts";

/**
 * Async generation over HTTP (OpenAPI generateAsyncSingle, getStatus, downloadRequest, downloadFile;
 * shared/generation/README.md#request-states-and-retention; README.md#errors): acceptance, validation, status
 * while processing and at the end, partial and total failure, downloads in every state, unknown ids and tenant
 * isolation. One local stack (real Chromium) for the file.
 */

type Workspace = RunningStack["localJson"]["workspaces"][number];

let stack: RunningStack;
let demo: Workspace;
let second: Workspace;
let invoice: { designId: string; version: number };

/** A value put only into `params`: it must never come back in a response. */
const PARAMS_MARKER = "PRM-MARKER-async-5e1d";
const RANDOM_ID = "ZzZz0000NoSuchId";

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());
const single = (content: Record<string, unknown>) => ({ ...invoice, content });
const multiple = (contents: Record<string, unknown>[]) => ({ ...invoice, contents });
/** The raw status response (for error answers). */
const statusResponse = (requestId: string, appKey = demo.appKey) => api(stack, appKey)(`/file/status/${requestId}`);

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_VISIBILITY_SCALE: "0.005" } });
  demo = stack.localJson.workspaces[0]!;
  second = stack.localJson.workspaces[1]!;
  invoice = { designId: invoiceOf(demo).id, version: invoiceOf(demo).latestVersion };
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** Asserts the headers of a PDF download (OpenAPI downloadFile) and returns its bytes. */
async function expectPdfDownload(res: Response, fileId: string, fileName: string): Promise<Uint8Array> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/pdf");
  expect(res.headers.get("file-id")).toBe(fileId);
  const bytes = await bytesOf(res);
  expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
  const disposition = parseContentDisposition(res.headers.get("content-disposition"));
  expect(disposition.type).toBe("attachment");
  expect(disposition.filenameStar ?? disposition.filename).toBe(`${fileName}.pdf`);
  expect(Buffer.from(bytes.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
  return bytes;
}

/** Asserts the headers of a ZIP download (OpenAPI downloadRequest) and returns the archive's entries. */
async function expectZipDownload(res: Response, requestId: string): Promise<Map<string, Uint8Array>> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zip");
  const bytes = await bytesOf(res);
  expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
  const disposition = parseContentDisposition(res.headers.get("content-disposition"));
  expect(disposition.type).toBe("attachment");
  // OpenAPI generateSyncMultiple, downloadRequest: `<template name>_<requestId>.zip`, URL-encoded.
  expect(disposition.filenameStar).toBe(`${INVOICE_LABEL}_${requestId}.zip`);
  expect(disposition.filenameStarRaw).toMatch(RFC5987_VALUE_CHARS);
  expect(decodeURIComponent(disposition.filename ?? "")).toBe(`${INVOICE_LABEL}_${requestId}.zip`);
  const zip = await JSZip.loadAsync(bytes);
  const entries = new Map<string, Uint8Array>();
  for (const entry of Object.values(zip.files)) entries.set(entry.name, await entry.async("uint8array"));
  return entries;
}

/** The share object of an accepted file. */
function expectShare(accepted: AcceptedJson, index: number, shareType: string, passcodeEnabled: boolean): void {
  const file = accepted.files[index]!;
  expect(keysOf(file.share)).toEqual(
    passcodeEnabled ? ["passcode", "passcodeEnabled", "shareType", "url"] : ["passcodeEnabled", "shareType", "url"],
  );
  expect(file.share.shareType).toBe(shareType);
  expect(file.share.passcodeEnabled).toBe(passcodeEnabled);
  expect(file.share.url).toBe(`${stack.localJson.siteUrl}/file/${accepted.requestId}/${file.fileId}`);
  if (passcodeEnabled) expect(file.share.passcode).toMatch(/^\S{4,}$/);
}

describe("acceptance and completion", () => {
  it("single: 202 per OpenAPI generateAsyncSingle, then `completed` per OpenAPI getStatus and the PDF at its downloadPath", async () => {
    const passthrough = { orderId: "ORD-7", amount: 1200 };
    const res = await postAsync(
      stack,
      demo.appKey,
      "single",
      single({
        fileName: "請求書 April",
        shareType: "03",
        passcodeEnabled: true,
        passthrough,
        params: { ...sampleParams(INVOICE), 件名: PARAMS_MARKER },
      }),
    );
    const text = await res.text();
    expect(res.status, text).toBe(202);
    expect(text).not.toContain(PARAMS_MARKER);
    const accepted = JSON.parse(text) as AcceptedJson;
    expect(keysOf(accepted)).toEqual(["files", "requestId", "url"]);
    expect(accepted.requestId).toMatch(ID_16);
    expect(accepted.url.startsWith(`${stack.localJson.siteUrl}/`)).toBe(true);
    expect(accepted.url).toContain(accepted.requestId);
    expect(accepted.url).not.toContain("download");
    expect(accepted.files).toHaveLength(1);
    const file = accepted.files[0]!;
    // OpenAPI generateAsyncSingle: fileId, fileName, passthrough (only when supplied), share — nothing else
    // (soft, so the rest of the lifecycle is still checked when this fails).
    expect.soft(keysOf(file)).toEqual(["fileId", "fileName", "passthrough", "share"]);
    expect(file.fileId).toMatch(/^[0-9A-Za-z]+$/);
    expect(file.fileName).toBe("請求書 April");
    expect(file.passthrough).toEqual(passthrough);
    expectShare(accepted, 0, "public", true);

    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.status).toBe(200);
    expect(done.headers.get("retry-after")).toBeNull();
    expect(JSON.stringify(done.body)).not.toContain(PARAMS_MARKER);
    expect(keysOf(done.body)).toEqual([
      "completedAt",
      "createdAt",
      "designId",
      "files",
      "requestId",
      "status",
      "version",
    ]);
    expect(done.body).toMatchObject({
      requestId: accepted.requestId,
      status: "completed",
      designId: invoice.designId,
      version: invoice.version,
    });
    expect(done.body.createdAt).toMatch(ISO_8601);
    expect(done.body.completedAt).toMatch(ISO_8601);
    expect(Date.parse(done.body.completedAt!)).toBeGreaterThanOrEqual(Date.parse(done.body.createdAt!));
    expect(done.body.files).toEqual([
      {
        fileId: file.fileId,
        fileName: "請求書 April",
        pageCount: expect.any(Number),
        downloadPath: `/v1/file/download/${accepted.requestId}/${file.fileId}`,
      },
    ]);
    const pageCount = done.body.files[0]!.pageCount!;
    expect(pageCount).toBeGreaterThanOrEqual(1);

    // OpenAPI getStatus: downloadPath is relative to the host and already carries /v1.
    const pdf = await expectPdfDownload(
      await fetch(`${hostOf(stack)}${done.body.files[0]!.downloadPath}`, { headers: { appkey: demo.appKey } }),
      file.fileId,
      "請求書 April",
    );
    expect((await inspectPdf(pdf)).pageCount).toBe(pageCount);
    expect(await compactPdfText(pdf)).toContain(PARAMS_MARKER);
  });

  it("multiple: one entry per item in order, passthrough only when supplied, passcode only when enabled; completed with a ZIP named after the design", async () => {
    const accepted = await acceptOrFail(
      stack,
      demo.appKey,
      "multiple",
      multiple([
        invoiceItem("alpha", { passthrough: { ref: "R-1" } }),
        invoiceItem("beta", { shareType: "02" }),
        invoiceItem("gamma"),
      ]),
    );
    expect(accepted.requestId).toMatch(ID_16);
    expect(accepted.files.map((f) => f.fileName)).toEqual(["alpha", "beta", "gamma"]);
    expect(new Set(accepted.files.map((f) => f.fileId)).size).toBe(3);
    expect(keysOf(accepted.files[0]!)).toEqual(["fileId", "fileName", "passthrough", "share"]);
    expect(keysOf(accepted.files[1]!)).toEqual(["fileId", "fileName", "share"]);
    expect(keysOf(accepted.files[2]!)).toEqual(["fileId", "fileName", "share"]);
    expectShare(accepted, 0, "workspace", false);
    expectShare(accepted, 1, "invited", false);
    expectShare(accepted, 2, "workspace", false);

    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.body.status).toBe("completed");
    expect(done.body).not.toHaveProperty("failedFiles");
    expect(done.body).not.toHaveProperty("error");
    expect(done.body.files.map((f) => [f.fileId, f.fileName, f.downloadPath])).toEqual(
      accepted.files.map((f) => [f.fileId, f.fileName, `/v1/file/download/${accepted.requestId}/${f.fileId}`]),
    );
    for (const f of done.body.files) expect(f.pageCount).toBeGreaterThanOrEqual(1);

    const entries = await expectZipDownload(await download(stack, demo.appKey, accepted.requestId), accepted.requestId);
    expect([...entries.keys()]).toEqual(["alpha.pdf", "beta.pdf", "gamma.pdf"]);
    const beta = await expectPdfDownload(
      await download(stack, demo.appKey, accepted.requestId, accepted.files[1]!.fileId),
      accepted.files[1]!.fileId,
      "beta",
    );
    expect(Buffer.from(entries.get("beta.pdf")!).equals(Buffer.from(beta))).toBe(true);
  });

  it("accepts a 100-file multiple in well under a second and completes it later", async () => {
    // A latency bound on a shared 2-core machine (other test files render side by side):
    // the best of at most three tries on an idle stack counts, and every try must complete.
    const times: number[] = [];
    while (times.length < 3 && !times.some((ms) => ms < 1000)) {
      const started = performance.now();
      const res = await postAsync(stack, demo.appKey, "multiple", multiple(invoiceItems(100, `bulk${times.length}`)));
      times.push(performance.now() - started);
      expect(res.status).toBe(202);
      const accepted = (await res.json()) as AcceptedJson;
      expect(accepted.files).toHaveLength(100);
      const done = await pollStatus(stack, demo.appKey, accepted.requestId);
      expect(done.body.status).toBe("completed");
      expect(done.body.files.map((f) => f.fileId)).toEqual(accepted.files.map((f) => f.fileId));
      expect(done.body).not.toHaveProperty("failedFiles");
    }
    expect(Math.min(...times), `acceptance times ${times.map((ms) => Math.round(ms)).join(", ")} ms`).toBeLessThan(
      1000,
    );
  }, 150_000);
});

describe("validation at acceptance is the same as sync", () => {
  const cases: { name: string; mode: "single" | "multiple"; body: () => unknown; status: number; code: string }[] = [
    {
      name: "a forbidden character in fileName",
      mode: "single",
      body: () => single(invoiceItem("a/b")),
      status: 400,
      code: "FILE_NAME_INVALID",
    },
    {
      name: "fileNames equal case-insensitively",
      mode: "multiple",
      body: () => multiple([invoiceItem("Invoice"), invoiceItem("invoice")]),
      status: 400,
      code: "FILE_NAME_DUPLICATED",
    },
    {
      name: "101 contents",
      mode: "multiple",
      body: () => multiple(invoiceItems(101)),
      status: 400,
      code: "TOO_MANY_CONTENTS",
    },
    {
      name: "a version that does not exist",
      mode: "single",
      body: () => ({ ...single(invoiceItem("v")), version: 99 }),
      status: 404,
      code: "DESIGN_VERSION_NOT_FOUND",
    },
    {
      name: "a designId that does not exist",
      mode: "multiple",
      body: () => ({ ...multiple([invoiceItem("d")]), designId: RANDOM_ID }),
      status: 404,
      code: "DESIGN_VERSION_NOT_FOUND",
    },
    {
      name: "a webhookUrl that is not a registered endpoint",
      mode: "single",
      body: () => ({ ...single(invoiceItem("w")), webhookUrl: "https://hooks.example.com/platen" }),
      status: 400,
      code: "WEBHOOK_URL_NOT_ALLOWED",
    },
    {
      name: "an empty webhookUrl (not read as none: that would send the events to every endpoint)",
      mode: "multiple",
      body: () => ({ ...multiple([invoiceItem("e")]), webhookUrl: "" }),
      status: 400,
      code: "WEBHOOK_URL_NOT_ALLOWED",
    },
    {
      name: "params that are not an object",
      mode: "multiple",
      body: () => multiple([{ fileName: "p", params: ["not", "an", "object"] }]),
      status: 400,
      code: "PARAMS_NOT_OBJECT",
    },
  ];

  it.each(cases)("$code: $name", async ({ mode, body, status, code }) => {
    const asyncAnswer = await errorOf(await postAsync(stack, demo.appKey, mode, body()));
    expect(asyncAnswer.status).toBe(status);
    expect(asyncAnswer.body).toMatchObject({ statusCode: status, code });
    const syncAnswer = await errorOf(await syncCaller(stack, demo.appKey)(mode, body()));
    expect(syncAnswer.status).toBe(status);
    expect({
      code: asyncAnswer.body.code,
      details: asyncAnswer.body.details,
      message: asyncAnswer.body.message,
    }).toEqual({
      code: syncAnswer.body.code,
      details: syncAnswer.body.details,
      message: syncAnswer.body.message,
    });
  });

  it("a params type mismatch is refused by sync (400) but accepted by async (202)", async () => {
    const body = single(mismatchedItem("mismatch"));
    const syncAnswer = await errorOf(await syncCaller(stack, demo.appKey)("single", body));
    expect(syncAnswer.status).toBe(400);
    expect(syncAnswer.body.code).toBe("PARAMS_TYPE_MISMATCH");
    expect((await postAsync(stack, demo.appKey, "single", body)).status).toBe(202);
  });
});

describe("failures after acceptance", () => {
  it("partial failure: `completed` with failedFiles for the bad item, files for the others; the ZIP holds only the successes", async () => {
    const accepted = await acceptOrFail(
      stack,
      demo.appKey,
      "multiple",
      multiple([invoiceItem("ok-1"), mismatchedItem("bad"), invoiceItem("ok-2")]),
    );
    const [ok1, bad, ok2] = accepted.files as [
      AcceptedJson["files"][number],
      AcceptedJson["files"][number],
      AcceptedJson["files"][number],
    ];
    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.body.status).toBe("completed");
    expect(done.body).not.toHaveProperty("error");
    expect(done.body.files.map((f) => [f.fileId, f.fileName])).toEqual([
      [ok1.fileId, "ok-1"],
      [ok2.fileId, "ok-2"],
    ]);
    expect(done.body.failedFiles).toEqual([
      { fileId: bad.fileId, fileName: "bad", code: "PARAMS_TYPE_MISMATCH", message: expect.any(String) },
    ]);
    expect(done.body.failedFiles![0]!.message.length).toBeGreaterThan(0);

    const entries = await expectZipDownload(await download(stack, demo.appKey, accepted.requestId), accepted.requestId);
    expect([...entries.keys()]).toEqual(["ok-1.pdf", "ok-2.pdf"]);
    await expectPdfDownload(await download(stack, demo.appKey, accepted.requestId, ok2.fileId), ok2.fileId, "ok-2");
    const failedFile = await errorOf(await download(stack, demo.appKey, accepted.requestId, bad.fileId));
    expect(failedFile.status).toBe(422);
    expect(failedFile.body.code).toBe("FILE_GENERATION_FAILED");
    expect(failedFile.body.message).toContain("PARAMS_TYPE_MISMATCH");
  });

  it("every file of a multiple failed: `failed` with FILE_GENERATION_FAILED and failedFiles; downloads 422", async () => {
    const accepted = await acceptOrFail(
      stack,
      demo.appKey,
      "multiple",
      multiple([mismatchedItem("bad-1"), mismatchedItem("bad-2")]),
    );
    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.headers.get("retry-after")).toBeNull();
    expect(done.body.status).toBe("failed");
    expect(done.body.error).toEqual({ code: "FILE_GENERATION_FAILED", message: expect.any(String) });
    expect(done.body.files).toEqual([]);
    expect(done.body.failedFiles!.map((f) => [f.fileId, f.fileName, f.code])).toEqual(
      accepted.files.map((f) => [f.fileId, f.fileName, "PARAMS_TYPE_MISMATCH"]),
    );
    expect(done.body.completedAt).toMatch(ISO_8601);

    const whole = await errorOf(await download(stack, demo.appKey, accepted.requestId));
    expect(whole.status).toBe(422);
    expect(whole.body.code).toBe("FILE_GENERATION_FAILED");
    expect(whole.body.message).toContain("FILE_GENERATION_FAILED");
    expect(whole.body.message).toContain(`/v1/file/status/${accepted.requestId}`);
    const one = await errorOf(await download(stack, demo.appKey, accepted.requestId, accepted.files[0]!.fileId));
    expect(one.status).toBe(422);
    expect(one.body.code).toBe("FILE_GENERATION_FAILED");
    expect(one.body.message).toContain("PARAMS_TYPE_MISMATCH");
  });

  it("a failed single: `failed` with the file's own code (PARAMS_TYPE_MISMATCH); downloads 422 naming it", async () => {
    const accepted = await acceptOrFail(stack, demo.appKey, "single", single(mismatchedItem("lonely")));
    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.body.status).toBe("failed");
    expect(done.body.error).toEqual({ code: "PARAMS_TYPE_MISMATCH", message: expect.any(String) });
    expect(done.body.files).toEqual([]);
    expect(done.body.failedFiles).toEqual([
      {
        fileId: accepted.files[0]!.fileId,
        fileName: "lonely",
        code: "PARAMS_TYPE_MISMATCH",
        message: expect.any(String),
      },
    ]);
    for (const fileId of [undefined, accepted.files[0]!.fileId]) {
      const answer = await errorOf(await download(stack, demo.appKey, accepted.requestId, fileId));
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe("FILE_GENERATION_FAILED");
      expect(answer.body.message).toContain("PARAMS_TYPE_MISMATCH");
    }
  });
});

describe("while processing", () => {
  it("status `processing` with Retry-After: 2 and no files; downloads 409 FILE_NOT_READY; completed has no Retry-After", async () => {
    const accepted = await acceptOrFail(stack, demo.appKey, "multiple", multiple(invoiceItems(40, "slow")));
    const last = accepted.files.at(-1)!;
    const [status, whole, one] = await Promise.all([
      getStatus(stack, demo.appKey, accepted.requestId),
      download(stack, demo.appKey, accepted.requestId).then(errorOf),
      download(stack, demo.appKey, accepted.requestId, last.fileId).then(errorOf),
    ]);
    expect(status.status).toBe(200);
    expect(status.headers.get("retry-after")).toBe("2");
    expect(status.body).toMatchObject({
      requestId: accepted.requestId,
      status: "processing",
      designId: invoice.designId,
      version: invoice.version,
      files: [],
    });
    expect(status.body.createdAt).toMatch(ISO_8601);
    expect(status.body).not.toHaveProperty("completedAt");
    for (const answer of [whole, one]) {
      expect(answer.status).toBe(409);
      expect(answer.headers.get("retry-after")).toBe("2");
      expect(answer.body).toMatchObject({ statusCode: 409, code: "FILE_NOT_READY", retryAfter: 2 });
    }

    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.body.status).toBe("completed");
    expect(done.headers.get("retry-after")).toBeNull();
    expect(done.body.files).toHaveLength(40);
    await expectPdfDownload(
      await download(stack, demo.appKey, accepted.requestId, last.fileId),
      last.fileId,
      last.fileName,
    );
  });
});

describe("unknown ids and other workspaces", () => {
  it("404 REQUEST_NOT_FOUND / FILE_NOT_FOUND for unknown request and file ids", async () => {
    const status = await errorOf(await statusResponse(RANDOM_ID));
    expect(status.status).toBe(404);
    expect(status.body.code).toBe("REQUEST_NOT_FOUND");
    const whole = await errorOf(await download(stack, demo.appKey, RANDOM_ID));
    expect([whole.status, whole.body.code]).toEqual([404, "FILE_NOT_FOUND"]);
    const orphan = await errorOf(await download(stack, demo.appKey, RANDOM_ID, RANDOM_ID));
    expect([orphan.status, orphan.body.code]).toEqual([404, "FILE_NOT_FOUND"]);
    const accepted = await acceptOrFail(stack, demo.appKey, "single", single(invoiceItem("known")));
    await pollStatus(stack, demo.appKey, accepted.requestId);
    const wrongFile = await errorOf(await download(stack, demo.appKey, accepted.requestId, RANDOM_ID));
    expect([wrongFile.status, wrongFile.body.code]).toEqual([404, "FILE_NOT_FOUND"]);
  });

  it("another workspace gets 404 for status and downloads of a completed, a failed and a processing request, and cannot use the design", async () => {
    const completed = await acceptOrFail(stack, demo.appKey, "single", single(invoiceItem("mine")));
    const failed = await acceptOrFail(stack, demo.appKey, "single", single(mismatchedItem("mine-bad")));
    await pollStatus(stack, demo.appKey, completed.requestId);
    await pollStatus(stack, demo.appKey, failed.requestId);
    const processing = await acceptOrFail(stack, demo.appKey, "multiple", multiple(invoiceItems(20, "busy")));
    for (const accepted of [processing, completed, failed]) {
      const status = await errorOf(await statusResponse(accepted.requestId, second.appKey));
      expect([status.status, status.body.code], `status of ${accepted.requestId}`).toEqual([404, "REQUEST_NOT_FOUND"]);
      const whole = await errorOf(await download(stack, second.appKey, accepted.requestId));
      expect([whole.status, whole.body.code], `download of ${accepted.requestId}`).toEqual([404, "FILE_NOT_FOUND"]);
      const one = await errorOf(await download(stack, second.appKey, accepted.requestId, accepted.files[0]!.fileId));
      expect([one.status, one.body.code], `file download of ${accepted.requestId}`).toEqual([404, "FILE_NOT_FOUND"]);
    }
    // Nor can it generate from the other workspace's design.
    const foreign = await errorOf(await postAsync(stack, second.appKey, "single", single(invoiceItem("theirs"))));
    expect([foreign.status, foreign.body.code]).toEqual([404, "DESIGN_VERSION_NOT_FOUND"]);
    // The owner still sees everything.
    expect((await getStatus(stack, demo.appKey, completed.requestId)).body.status).toBe("completed");
    await pollStatus(stack, demo.appKey, processing.requestId);
  });
});
