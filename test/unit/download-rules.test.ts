import { describe, expect, it } from "vitest";
import { RETRY_AFTER_SECONDS, resolveFileDownload, resolveRequestDownload } from "#shared/generation/reads/index.ts";
import { epoch, fileRecord, fixedClock, jobRecord, memoryRequestDeps } from "../helpers/memory-requests.ts";
import { refusal } from "../helpers/refusal.ts";

/**
 * The download rules (OpenAPI downloadRequest for a whole request, downloadFile for one file) over in-memory
 * ports.
 */

const NOW = "2026-01-01T01:00:00Z";
const setup = (labels?: Record<string, string>) => memoryRequestDeps(fixedClock(NOW), labels);

const notReady = { code: "FILE_NOT_READY", status: 409, retryAfter: RETRY_AFTER_SECONDS };
const generationFailed = (failureCode: string) => ({
  code: "FILE_GENERATION_FAILED",
  status: 422,
  vars: { failureCode, requestId: "req_1" },
});

describe("resolveRequestDownload (OpenAPI downloadRequest)", () => {
  it("answers 409 with Retry-After while the request is processing", async () => {
    const deps = setup();
    deps.requests.putJob(jobRecord()).putFiles(fileRecord());
    expect(await refusal(resolveRequestDownload("req_1", "ws_a", deps))).toMatchObject(notReady);
  });

  it("answers 422 naming the job's failure code when the request failed", async () => {
    const deps = setup();
    deps.requests
      .putJob(jobRecord({ status: "failed", error: { code: "PAGE_LIMIT_EXCEEDED", message: "x" } }))
      .putFiles(fileRecord({ status: "failed" }));
    expect(await refusal(resolveRequestDownload("req_1", "ws_a", deps))).toMatchObject(
      generationFailed("PAGE_LIMIT_EXCEEDED"),
    );
  });

  it("downloads only the successful files of a partly failed request, named by the job's design label", async () => {
    const deps = setup();
    deps.requests
      .putJob(jobRecord({ status: "completed" }))
      .putFiles(
        fileRecord(),
        fileRecord({ fileId: "f2", index: 1, status: "failed" }),
        fileRecord({ fileId: "f3", index: 2 }),
      );
    const { templateName, files } = await resolveRequestDownload("req_1", "ws_a", deps);
    expect([templateName, files.map((f) => f.fileId)]).toEqual(["Invoice", ["f1", "f3"]]);
  });

  it("names the ZIP from the design version after the job record is gone, 'platen' when that version is gone too", async () => {
    const deps = setup({ "ws_a/invoice/3": "Monthly invoice" });
    deps.requests.putFiles(fileRecord({ source: "sync" }));
    expect((await resolveRequestDownload("req_1", "ws_a", deps)).templateName).toBe("Monthly invoice");
    const gone = setup();
    gone.requests.putFiles(fileRecord({ source: "sync" }));
    expect((await resolveRequestDownload("req_1", "ws_a", gone)).templateName).toBe("platen");
  });

  it("never serves a silently partial ZIP of a sync request whose store was interrupted (422)", async () => {
    const deps = setup();
    deps.requests.putFiles(
      fileRecord({ source: "sync" }),
      fileRecord({ fileId: "f2", index: 1, source: "sync", status: "storing", storeBy: epoch(NOW) - 1 }),
    );
    expect(await refusal(resolveRequestDownload("req_1", "ws_a", deps))).toMatchObject(
      generationFailed("GENERATION_INTERRUPTED"),
    );
  });

  it("after 24 h: an all-failed multiple is still 422, a failed single 404, like unknown, foreign or expired requests", async () => {
    const multiple = setup();
    multiple.requests.putFiles(
      fileRecord({ status: "failed" }),
      fileRecord({ fileId: "f2", index: 1, status: "failed" }),
    );
    expect(await refusal(resolveRequestDownload("req_1", "ws_a", multiple))).toMatchObject(
      generationFailed("FILE_GENERATION_FAILED"),
    );
    const single = setup();
    single.requests.putFiles(fileRecord({ mode: "single", status: "failed" }));
    expect((await refusal(resolveRequestDownload("req_1", "ws_a", single))).code).toBe("FILE_NOT_FOUND");
    const other = setup();
    other.requests
      .putJob(jobRecord({ status: "completed", workspaceId: "ws_b" }))
      .putFiles(fileRecord({ workspaceId: "ws_b" }), fileRecord({ requestId: "req_old", expiresAt: epoch(NOW) }));
    for (const id of ["req_1", "req_old", "req_404"])
      expect((await refusal(resolveRequestDownload(id, "ws_a", other))).code).toBe("FILE_NOT_FOUND");
  });
});

describe("resolveFileDownload (OpenAPI downloadFile)", () => {
  it("serves a done file of the workspace; another workspace's or an expired one is 404", async () => {
    const deps = setup();
    deps.requests.putFiles(
      fileRecord(),
      fileRecord({ fileId: "f2", workspaceId: "ws_b" }),
      fileRecord({ fileId: "f3", expiresAt: epoch(NOW) }),
    );
    expect((await resolveFileDownload("req_1", "f1", "ws_a", deps)).s3Key).toBe("files/ws_a/req_1/f1.pdf");
    for (const id of ["f2", "f3", "f404"])
      expect((await refusal(resolveFileDownload("req_1", id, "ws_a", deps))).code).toBe("FILE_NOT_FOUND");
  });

  it("answers 409 for a file still queued or counting while its request processes, 404 once the request is gone", async () => {
    const deps = setup();
    deps.requests
      .putJob(jobRecord())
      .putFiles(fileRecord({ status: "queued" }), fileRecord({ fileId: "f2", index: 1, status: "counting" }));
    for (const id of ["f1", "f2"])
      expect(await refusal(resolveFileDownload("req_1", id, "ws_a", deps))).toMatchObject(notReady);
    deps.requests.jobs.clear();
    for (const id of ["f1", "f2"])
      expect((await refusal(resolveFileDownload("req_1", id, "ws_a", deps))).code).toBe("FILE_NOT_FOUND");
  });

  it("answers 422 with the file's own code while the job lives, for multiples and sync files; 404 for an old failed async single", async () => {
    const deps = setup();
    deps.requests
      .putJob(jobRecord({ status: "completed" }))
      .putFiles(fileRecord({ mode: "single", status: "failed", errorCode: "TEMPLATE_ERROR" }));
    expect(await refusal(resolveFileDownload("req_1", "f1", "ws_a", deps))).toMatchObject(
      generationFailed("TEMPLATE_ERROR"),
    );
    deps.requests.jobs.clear();
    expect((await refusal(resolveFileDownload("req_1", "f1", "ws_a", deps))).code).toBe("FILE_NOT_FOUND");
    deps.requests.putFiles(fileRecord({ mode: "multiple", status: "failed", errorCode: "TEMPLATE_ERROR" }));
    expect(await refusal(resolveFileDownload("req_1", "f1", "ws_a", deps))).toMatchObject(
      generationFailed("TEMPLATE_ERROR"),
    );
    deps.requests.putFiles(fileRecord({ mode: "single", source: "sync", status: "storing", storeBy: epoch(NOW) - 1 }));
    expect(await refusal(resolveFileDownload("req_1", "f1", "ws_a", deps))).toMatchObject(
      generationFailed("GENERATION_INTERRUPTED"),
    );
  });

  it("waits for a sync file being stored and serves it once stored", async () => {
    const deps = setup();
    deps.requests.putFiles(fileRecord({ source: "sync", status: "storing", storeBy: epoch(NOW) + 60 }));
    let reads = 0;
    deps.requests.beforeFileRead = () => {
      if (++reads === 3) deps.requests.putFiles(fileRecord({ source: "sync" }));
    };
    expect((await resolveFileDownload("req_1", "f1", "ws_a", deps)).status).toBe("done");
    expect(reads).toBe(3);
  });
});
