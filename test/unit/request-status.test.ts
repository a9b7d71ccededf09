import { describe, expect, it } from "vitest";
import { catalogue } from "#shared/errors/catalogue.ts";
import { downloadPath, requestStatus } from "#shared/generation/reads/index.ts";
import { epoch, fileRecord, fixedClock, jobRecord, memoryRequestDeps } from "../helpers/memory-requests.ts";
import { refusal } from "../helpers/refusal.ts";

/**
 * The status decision (OpenAPI getStatus, shared/generation/README.md#request-states-and-retention) over
 * in-memory ports: job record first, file records after it.
 */

const NOW = "2026-01-01T01:00:00Z";
const setup = () => memoryRequestDeps(fixedClock(NOW));

describe("requestStatus from the job record", () => {
  it("answers a processing request from one read, files empty, no listing of its files", async () => {
    const deps = setup();
    deps.requests.putJob(jobRecord()).putFiles(fileRecord());
    expect(await requestStatus("req_1", "ws_a", deps)).toEqual({
      requestId: "req_1",
      status: "processing",
      designId: "invoice",
      version: 3,
      files: [],
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    expect(deps.requests.calls).toEqual(["getJob:req_1"]);
  });

  it("lists a completed request's done files with page counts and download paths, and the job's failed files", async () => {
    const deps = setup();
    const failedFiles = [{ fileId: "f2", fileName: "b.pdf", code: "PAGE_LIMIT_EXCEEDED", message: "too many pages" }];
    deps.requests
      .putJob(
        jobRecord({
          status: "completed",
          completedAt: "2026-01-01T00:00:09.000Z",
          failedFiles,
          expiresAt: epoch("2026-01-02T00:00:09Z"),
        }),
      )
      .putFiles(
        fileRecord(),
        fileRecord({ fileId: "f2", index: 1, fileName: "b.pdf", status: "failed", errorCode: "PAGE_LIMIT_EXCEEDED" }),
      );
    expect(await requestStatus("req_1", "ws_a", deps)).toEqual({
      requestId: "req_1",
      status: "completed",
      designId: "invoice",
      version: 3,
      files: [{ fileId: "f1", fileName: "a.pdf", pageCount: 2, downloadPath: "/v1/file/download/req_1/f1" }],
      failedFiles,
      createdAt: "2026-01-01T00:00:00.000Z",
      completedAt: "2026-01-01T00:00:09.000Z",
    });
  });

  it("keeps a failed request's error and no files", async () => {
    const deps = setup();
    const error = { code: "FILE_GENERATION_FAILED", message: "Every file of the request failed." };
    deps.requests
      .putJob(jobRecord({ status: "failed", error, completedAt: "2026-01-01T00:00:09.000Z" }))
      .putFiles(fileRecord({ status: "failed" }));
    expect(await requestStatus("req_1", "ws_a", deps)).toMatchObject({
      status: "failed",
      files: [],
      error,
      completedAt: "2026-01-01T00:00:09.000Z",
    });
  });

  it("hides another workspace's request exactly like an unknown one (404)", async () => {
    const deps = setup();
    deps.requests.putJob(jobRecord({ workspaceId: "ws_b" })).putFiles(fileRecord({ workspaceId: "ws_b" }));
    const foreign = await refusal(requestStatus("req_1", "ws_a", deps));
    const unknown = await refusal(requestStatus("req_404", "ws_a", deps));
    expect([foreign.code, foreign.status, unknown.code]).toEqual(["REQUEST_NOT_FOUND", 404, "REQUEST_NOT_FOUND"]);
  });
});

describe("requestStatus after the job record (24 h) and for sync requests", () => {
  it("rebuilds a completed request from its live file records once the job has passed its retention", async () => {
    const deps = setup();
    deps.requests
      .putJob(jobRecord({ status: "completed", expiresAt: epoch(NOW) }))
      .putFiles(fileRecord(), fileRecord({ fileId: "f2", index: 1, fileName: "b.pdf", status: "failed" }));
    expect(await requestStatus("req_1", "ws_a", deps)).toEqual({
      requestId: "req_1",
      status: "completed",
      designId: "invoice",
      files: [{ fileId: "f1", fileName: "a.pdf", downloadPath: downloadPath("req_1", "f1") }],
    });
  });

  it("leaves out files past their retention and answers 404 when none is left", async () => {
    const deps = setup();
    deps.requests.putFiles(
      fileRecord({ source: "sync", expiresAt: epoch(NOW) }),
      fileRecord({ fileId: "f2", index: 1, source: "sync" }),
    );
    expect((await requestStatus("req_1", "ws_a", deps)).files.map((f) => f.fileId)).toEqual(["f2"]);
    deps.requests.putFiles(fileRecord({ fileId: "f2", index: 1, source: "sync", expiresAt: epoch(NOW) - 1 }));
    expect((await refusal(requestStatus("req_1", "ws_a", deps))).code).toBe("REQUEST_NOT_FOUND");
  });

  it("answers an all-failed multiple FILE_GENERATION_FAILED, and a failed single 404", async () => {
    const deps = setup();
    deps.requests.putFiles(fileRecord({ status: "failed" }), fileRecord({ fileId: "f2", index: 1, status: "failed" }));
    expect(await requestStatus("req_1", "ws_a", deps)).toEqual({
      requestId: "req_1",
      status: "failed",
      designId: "invoice",
      files: [],
      error: { code: "FILE_GENERATION_FAILED", message: "Every file of the request failed." },
    });
    const single = setup();
    single.requests.putFiles(fileRecord({ mode: "single", status: "failed", errorCode: "TEMPLATE_ERROR" }));
    expect((await refusal(requestStatus("req_1", "ws_a", single))).code).toBe("REQUEST_NOT_FOUND");
  });

  it("reads a sync file being stored again until it is stored", async () => {
    const deps = setup();
    deps.requests.putFiles(fileRecord({ source: "sync", status: "storing", storeBy: epoch(NOW) + 60 }));
    let reads = 0;
    deps.requests.beforeFileRead = () => {
      if (++reads === 2) deps.requests.putFiles(fileRecord({ source: "sync" }));
    };
    expect(await requestStatus("req_1", "ws_a", deps)).toMatchObject({
      status: "completed",
      files: [{ fileId: "f1" }],
    });
    expect(reads).toBe(2);
  });

  it("reports a sync file whose store was interrupted, beside the stored ones or alone", async () => {
    const deps = setup();
    const interrupted = fileRecord({
      fileId: "f2",
      index: 1,
      fileName: "b.pdf",
      source: "sync",
      status: "storing",
      storeBy: epoch(NOW) - 1,
    });
    deps.requests.putFiles(fileRecord({ source: "sync" }), interrupted);
    const failedFile = { fileId: "f2", fileName: "b.pdf", code: "GENERATION_INTERRUPTED" };
    expect(await requestStatus("req_1", "ws_a", deps)).toMatchObject({
      status: "completed",
      files: [{ fileId: "f1" }],
      failedFiles: [failedFile],
    });
    const alone = setup();
    alone.requests.putFiles({ ...interrupted, mode: "single" });
    const status = await requestStatus("req_1", "ws_a", alone);
    expect(status).toMatchObject({
      status: "failed",
      files: [],
      failedFiles: [failedFile],
      error: { code: "GENERATION_INTERRUPTED" },
    });
    expect(status.error?.message).toBe(catalogue.GENERATION_INTERRUPTED.en);
  });
});
