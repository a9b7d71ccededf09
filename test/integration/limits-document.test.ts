import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listDesigns } from "#shared/designs/design-pages.ts";
import { acceptOrFail, download, errorOf, pollStatus } from "../helpers/async-http.ts";
import {
  adminPublish,
  floodDesign,
  floodParams,
  type HealthSample,
  pageBreakDesign,
  watchHealth,
} from "../helpers/limit-fixtures.ts";
import { postJson } from "../helpers/limits-http.ts";
import { adminUsage, createPlanTenant, type PlanTenant } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { fileRecordsOfWorkspace, useStackEmulators } from "../helpers/stack-clients.ts";
import { publishFolder, writeDesignFolder } from "../helpers/sync-fixtures.ts";

/**
 * Hostile documents (issue: per-document limits) over HTTP: each ends in its own
 * non-retryable 422 code, nothing is billed (a stopping plan, so a reservation is made
 * and must be refunded) and the health check keeps answering meanwhile. Default limits
 * (2,000 pages, 20 M characters of HTML); the render budget is 10 s (the page checks need
 * a few seconds). The render deadline has its own file (limits-deadline.test.ts).
 */

const ENV = { RENDER_TIMEOUT_MS: "10000" };

let stack: RunningStack;
let tenant: PlanTenant;
let tmp: string;
let breaks: { id: string; version: number };
let flood: { id: string; version: number };
let health: ReturnType<typeof watchHealth> | undefined;
let samples: HealthSample[] = [];

beforeAll(async () => {
  stack = await startStack({ env: ENV });
  // free: 30 pages a month and stops, so every request reserves pages before it renders.
  tenant = await createPlanTenant(stack, "Document limits", "free");
  tmp = mkdtempSync(join(tmpdir(), "platen-doc-limits-"));
  breaks = await publishFolder(
    stack,
    tenant.workspaceId,
    writeDesignFolder(tmp, "breaks", { ...pageBreakDesign, sampleParams: { n: 1 } }),
  );
  flood = await publishFolder(stack, tenant.workspaceId, writeDesignFolder(tmp, "flood", floodDesign));
  useStackEmulators(stack.dataDir);
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

beforeEach(() => {
  health = watchHealth(stack);
});

afterEach(async () => {
  samples = (await health?.stop()) ?? [];
  health = undefined;
  // The service answered its health check throughout, promptly.
  expect(samples.length).toBeGreaterThan(0);
  expect(samples.filter((s) => s.status !== 200)).toEqual([]);
  expect(Math.max(...samples.map((s) => s.ms))).toBeLessThan(3_000);
});

const single = (designId: string, version: number, params: Record<string, unknown>) => ({
  designId,
  version,
  content: { fileName: "hostile", params },
});

/** The 422 of a sync request with its code, in English and in Japanese. */
async function expectSync422(body: unknown, code: string, limit: string) {
  const res = await postJson(stack, tenant.appKey, "/file/sync/single", body);
  const error = await errorOf(res);
  expect([error.status, error.body.code]).toEqual([422, code]);
  expect(error.body.message).toContain(limit);
  expect(error.body.docsUrl.endsWith(`/docs/errors#${code.toLowerCase()}`)).toBe(true);
  const ja = await errorOf(
    await postJson(stack, tenant.appKey, "/file/sync/single", body, { "accept-language": "ja" }),
  );
  expect([ja.status, ja.body.code, ja.headers.get("content-language")]).toEqual([422, code, "ja"]);
}

/** An async single that fails with `code`: status, failedFiles and both downloads say so. */
async function expectAsyncFailure(body: unknown, code: string) {
  const accepted = await acceptOrFail(stack, tenant.appKey, "single", body);
  const ended = await pollStatus(stack, tenant.appKey, accepted.requestId, { timeoutMs: 90_000 });
  expect(ended.body.status).toBe("failed");
  expect(ended.body.error?.code).toBe(code);
  expect(ended.body.failedFiles?.map((f) => f.code)).toEqual([code]);
  for (const fileId of [undefined, accepted.files[0]!.fileId]) {
    const answer = await errorOf(await download(stack, tenant.appKey, accepted.requestId, fileId));
    expect([answer.status, answer.body.code]).toEqual([422, "FILE_GENERATION_FAILED"]);
    expect(answer.body.message).toContain(code);
  }
}

/** Nothing counted and no file left behind for the tenant. */
async function expectNothingBilled() {
  expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(0);
  expect((await fileRecordsOfWorkspace(tenant.workspaceId)).filter((r) => r.status === "done")).toEqual([]);
}

describe("a design that loops out 50,000 page breaks", () => {
  it("sync: 422 DOCUMENT_PAGE_LIMIT_EXCEEDED within seconds, not a 500 after a minute", async () => {
    const started = Date.now();
    await expectSync422(single(breaks.id, breaks.version, { n: 50_000 }), "DOCUMENT_PAGE_LIMIT_EXCEEDED", "2,000");
    expect(Date.now() - started).toBeLessThan(40_000);
    // No record of the refused request stays behind.
    expect(await fileRecordsOfWorkspace(tenant.workspaceId)).toEqual([]);
    await expectNothingBilled();
  }, 90_000);

  it("async: the file fails with DOCUMENT_PAGE_LIMIT_EXCEEDED at its first attempt", async () => {
    await expectAsyncFailure(single(breaks.id, breaks.version, { n: 50_000 }), "DOCUMENT_PAGE_LIMIT_EXCEEDED");
    await expectNothingBilled();
  }, 120_000);

  it("publish: the admin CLI refuses the design (its sample is 50,000 pages) and stores no version", async () => {
    const dir = writeDesignFolder(tmp, "breaks-sample", { ...pageBreakDesign, label: "TEST 50k sample" });
    const out = await adminPublish(stack, dir, tenant.workspaceId);
    expect(out.ok).toBe(false);
    expect(out.output).toContain("DOCUMENT_PAGE_LIMIT_EXCEEDED");
    const listed = await listDesigns(tenant.workspaceId, 1, stack.baseUrl);
    expect(listed.designs.map((d) => d.label)).not.toContain("TEST 50k sample");
  }, 120_000);
});

describe("a template that emits 100 MB of HTML", () => {
  it("sync: 422 DOCUMENT_HTML_LIMIT_EXCEEDED; async: the file fails with it", async () => {
    await expectSync422(single(flood.id, flood.version, floodParams), "DOCUMENT_HTML_LIMIT_EXCEEDED", "20,000,000");
    await expectAsyncFailure(single(flood.id, flood.version, floodParams), "DOCUMENT_HTML_LIMIT_EXCEEDED");
    await expectNothingBilled();
  }, 120_000);
});
