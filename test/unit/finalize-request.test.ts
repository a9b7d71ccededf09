import { describe, expect, it } from "vitest";
import { catalogue } from "#shared/errors/catalogue.ts";
import {
  finalizeIfSettled,
  finalizeSingle,
  finalizeWith,
  outcomeOf,
} from "#shared/generation/settle/finalize-request.ts";
import { JOB_RETENTION_MS } from "#shared/generation/store/index.ts";
import { epoch, fileRecord, fixedClock, jobRecord, memoryRequestDeps } from "../helpers/memory-requests.ts";

/**
 * `outcomeOf` (see shared/generation/README.md#request-states-and-retention) and finalization (outbox first,
 * exactly one winner) over in-memory ports.
 */

const NOW = "2026-01-01T01:00:00.000Z";
const setup = () => memoryRequestDeps(fixedClock(NOW));
const done = (fileId: string, index: number) => fileRecord({ fileId, index });
const failed = (fileId: string, index: number, errorCode?: string) =>
  fileRecord({
    fileId,
    index,
    status: "failed",
    ...(errorCode && { errorCode, errorMessage: `${errorCode} happened` }),
  });

describe("outcomeOf", () => {
  it("completes a request whose files are all done, without failed files", () => {
    expect(outcomeOf({ mode: "multiple" }, [done("f1", 0), done("f2", 1)])).toEqual({ status: "completed" });
  });

  it("completes a partly failed request and lists its failed files, unknown causes as INTERNAL_ERROR", () => {
    expect(
      outcomeOf({ mode: "multiple" }, [done("f1", 0), failed("f2", 1, "TEMPLATE_ERROR"), failed("f3", 2)]),
    ).toEqual({
      status: "completed",
      failedFiles: [
        { fileId: "f2", fileName: "a.pdf", code: "TEMPLATE_ERROR", message: "TEMPLATE_ERROR happened" },
        { fileId: "f3", fileName: "a.pdf", code: "INTERNAL_ERROR", message: catalogue.INTERNAL_ERROR.en },
      ],
    });
  });

  it("fails an all-failed multiple with FILE_GENERATION_FAILED, an all-failed single with its file's own error", () => {
    const files = [failed("f1", 0, "PAGE_LIMIT_EXCEEDED"), failed("f2", 1, "TEMPLATE_ERROR")];
    expect(outcomeOf({ mode: "multiple" }, files)).toMatchObject({
      status: "failed",
      error: { code: "FILE_GENERATION_FAILED", message: "Every file of the request failed." },
    });
    expect(outcomeOf({ mode: "single" }, [files[1]!])).toMatchObject({
      status: "failed",
      error: { code: "TEMPLATE_ERROR", message: "TEMPLATE_ERROR happened" },
    });
  });
});

describe("finalizeIfSettled", () => {
  it("does nothing before every file is final, or when the job already ended", async () => {
    const deps = setup();
    deps.requests.putJob(jobRecord({ total: 3 })).putFiles(done("f1", 0), done("f2", 1));
    expect(await finalizeIfSettled("req_1", deps)).toBe(false);
    deps.requests.putFiles(fileRecord({ fileId: "f3", index: 2, status: "counting" }));
    expect(await finalizeIfSettled("req_1", deps)).toBe(false);
    deps.requests.putJob(jobRecord({ requestId: "req_2", status: "completed" }));
    expect(await finalizeIfSettled("req_2", deps)).toBe(false);
    expect(await finalizeIfSettled("req_404", deps)).toBe(false);
    expect([deps.requests.jobs.get("req_1")?.status, deps.outbox.recorded]).toEqual(["processing", []]);
  });

  it("records the events before it ends the job, then queues them: file.completed, and file.failed only with webhookUrl", async () => {
    const deps = setup();
    deps.requests
      .putJob(jobRecord({ total: 2, webhookUrl: "https://hooks.example/x" }))
      .putFiles(done("f1", 0), failed("f2", 1, "TEMPLATE_ERROR"));
    expect(await finalizeIfSettled("req_1", deps)).toBe(true);
    expect(deps.requests.calls).toEqual([
      "getJob:req_1",
      "listFiles:req_1",
      "record:file.completed",
      "record:file.failed",
      "finalizeJob:req_1",
      "deliver:file.completed",
      "deliver:file.failed",
    ]);
    const base = {
      workspaceId: "ws_a",
      requestId: "req_1",
      designId: "invoice",
      version: 3,
      timestamp: NOW,
      webhookUrl: "https://hooks.example/x",
    };
    expect(deps.outbox.delivered).toEqual([
      { ...base, event: "file.completed", fileIds: ["f1"] },
      { ...base, event: "file.failed", fileIds: ["f2"], errorCode: "PARTIAL_FAILURE" },
    ]);
    const { activeShard, ...job } = deps.requests.jobs.get("req_1")!;
    expect(activeShard).toBeUndefined();
    expect(job).toMatchObject({
      status: "completed",
      failedFiles: [{ fileId: "f2", code: "TEMPLATE_ERROR" }],
      completedAt: NOW,
      expiresAt: Math.floor((Date.parse(NOW) + JOB_RETENTION_MS) / 1000),
    });
  });

  it("keeps the events as long as the longest-kept file, and at least a day", async () => {
    const deps = setup();
    deps.requests
      .putJob(jobRecord({ total: 2 }))
      .putFiles(done("f1", 0), fileRecord({ fileId: "f2", index: 1, expiresAt: epoch("2026-01-08T00:00:00Z") }));
    await finalizeIfSettled("req_1", deps);
    const short = setup();
    short.requests.putJob(jobRecord({ total: 1 })).putFiles(fileRecord({ expiresAt: epoch("2026-01-01T02:00:00Z") }));
    await finalizeIfSettled("req_1", short);
    expect([deps.outbox.recorded[0]?.expiresAt, short.outbox.recorded[0]?.expiresAt]).toEqual([
      epoch("2026-01-08T00:00:00Z"),
      epoch(NOW) + 86400,
    ]);
  });

  it("sends no file.failed without webhookUrl; an all-failed request's failure names its code", async () => {
    const quiet = setup();
    quiet.requests.putJob(jobRecord({ total: 1 })).putFiles(failed("f1", 0, "TEMPLATE_ERROR"));
    await finalizeIfSettled("req_1", quiet);
    expect([quiet.requests.jobs.get("req_1")?.status, quiet.outbox.recorded]).toEqual(["failed", []]);
    const single = setup();
    single.requests
      .putJob(jobRecord({ mode: "single", total: 1, webhookUrl: "https://hooks.example/x" }))
      .putFiles(failed("f1", 0, "TEMPLATE_ERROR"));
    await finalizeIfSettled("req_1", single);
    const multiple = setup();
    multiple.requests
      .putJob(jobRecord({ total: 1, webhookUrl: "https://hooks.example/x" }))
      .putFiles(failed("f1", 0, "TEMPLATE_ERROR"));
    await finalizeIfSettled("req_1", multiple);
    expect([single, multiple].map((d) => d.outbox.delivered.map((e) => [e.event, e.errorCode]))).toEqual([
      [["file.failed", "TEMPLATE_ERROR"]],
      [["file.failed", "FILE_GENERATION_FAILED"]],
    ]);
  });

  it("lets exactly one of two racing finalizers end the job and queue the deliveries", async () => {
    const deps = setup();
    deps.requests.putJob(jobRecord({ total: 2 })).putFiles(done("f1", 0), done("f2", 1));
    const results = await Promise.all([finalizeIfSettled("req_1", deps), finalizeIfSettled("req_1", deps)]);
    expect(results.sort()).toEqual([false, true]);
    expect(deps.outbox.delivered).toHaveLength(1);
    expect(await finalizeIfSettled("req_1", deps)).toBe(false);
    expect(deps.outbox.delivered).toHaveLength(1);
  });

  it("still ends the job when queueing fails: the recorded events wait in the outbox for the relay", async () => {
    const deps = setup();
    deps.outbox.failDeliveries = true;
    deps.requests.putJob(jobRecord({ total: 1 })).putFiles(done("f1", 0));
    expect(await finalizeIfSettled("req_1", deps)).toBe(true);
    expect([
      deps.requests.jobs.get("req_1")?.status,
      deps.outbox.recorded.length,
      deps.outbox.delivered.length,
    ]).toEqual(["completed", 1, 0]);
  });
});

describe("events nobody receives", () => {
  it("are neither recorded nor queued, and the job still ends (no outbox write for a workspace without endpoints)", async () => {
    const deps = setup();
    deps.outbox.receives = () => false;
    deps.requests.putJob(jobRecord({ total: 1 })).putFiles(done("f1", 0));
    expect(await finalizeIfSettled("req_1", deps)).toBe(true);
    expect(deps.requests.calls).toEqual(["getJob:req_1", "listFiles:req_1", "finalizeJob:req_1"]);
    expect([deps.requests.jobs.get("req_1")?.status, deps.outbox.recorded, deps.outbox.delivered]).toEqual([
      "completed",
      [],
      [],
    ]);
  });

  it("leave the others: only the received event is recorded before the end", async () => {
    const deps = setup();
    deps.outbox.receives = (e) => e.event === "file.failed";
    deps.requests
      .putJob(jobRecord({ total: 2, webhookUrl: "https://hooks.example/x" }))
      .putFiles(done("f1", 0), failed("f2", 1, "TEMPLATE_ERROR"));
    await finalizeIfSettled("req_1", deps);
    expect(deps.requests.calls.slice(2)).toEqual(["record:file.failed", "finalizeJob:req_1", "deliver:file.failed"]);
  });
});

describe("finalizeSingle", () => {
  it("counts a single's final file in the write that ends the request", async () => {
    const deps = setup();
    deps.requests.putJob(jobRecord({ mode: "single", total: 1 })).putFiles(done("f1", 0));
    expect(await finalizeSingle("req_1", "f1", deps, NOW)).toBe(true);
    expect(deps.requests.calls).toEqual([
      "getJob:req_1",
      "listFiles:req_1",
      "record:file.completed",
      "finalizeJob:req_1+f1",
      "deliver:file.completed",
    ]);
    expect(deps.requests.jobs.get("req_1")).toMatchObject({ status: "completed", settled: 1, renderAliveAt: NOW });
  });

  it("leaves to the ordinary count a request of several files, a file not final, an ended job", async () => {
    const several = setup();
    several.requests.putJob(jobRecord({ total: 2 })).putFiles(done("f1", 0));
    const counting = setup();
    counting.requests
      .putJob(jobRecord({ mode: "single", total: 1 }))
      .putFiles(fileRecord({ fileId: "f1", index: 0, status: "counting" }));
    const ended = setup();
    ended.requests.putJob(jobRecord({ mode: "single", total: 1, status: "completed" })).putFiles(done("f1", 0));
    const other = setup();
    other.requests.putJob(jobRecord({ mode: "single", total: 1 })).putFiles(done("f2", 0));
    for (const deps of [several, counting, ended, other]) {
      expect(await finalizeSingle("req_1", "f1", deps)).toBe(false);
      expect(deps.requests.calls.filter((c) => c.startsWith("finalizeJob"))).toEqual([]);
    }
  });
});

describe("finalizeWith", () => {
  it("ends the job with the outcome it is given (the sweeper's GENERATION_INTERRUPTED)", async () => {
    const deps = setup();
    const job = jobRecord({ total: 2 });
    deps.requests.putJob(job).putFiles(done("f1", 0));
    const error = { code: "GENERATION_INTERRUPTED", message: catalogue.GENERATION_INTERRUPTED.en };
    expect(await finalizeWith(job, [done("f1", 0)], { status: "failed", error }, deps)).toBe(true);
    expect(deps.requests.jobs.get("req_1")).toMatchObject({ status: "failed", error });
    expect(deps.outbox.delivered.map((e) => e.event)).toEqual(["file.completed"]);
  });
});
