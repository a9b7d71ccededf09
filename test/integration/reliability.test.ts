import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFileRecord } from "#shared/generation/store/index.ts";
import { verifyPasscode } from "#shared/generation/requests/index.ts";
import { invoiceItem, invoiceItems } from "../helpers/async-fixtures.ts";
import { type AcceptedJson, acceptOrFail, errorOf, pollStatus } from "../helpers/async-http.ts";
import { invoiceSingle, invoiceWithRows, postJson } from "../helpers/limits-http.ts";
import { adminUsage, createPlanTenant, pagesUsedNow } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, settled, startStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";

/**
 * Reliability and security hardening over HTTP: the monthly page limit under
 * concurrency, params nesting and passcode hashing that never stalls
 * the process (last: it leaves 100 renders queued).
 */

let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** Invoice rows for a document of a few pages (the header repeats on each page). */
const ROWS = 120;

describe("the free plan's 30 pages hold under concurrency", () => {
  it("25 concurrent multi-page sync requests: the pages delivered never exceed 30, each refusal is 403 PLAN_PAGE_LIMIT_EXCEEDED, and the usage equals the pages delivered", async () => {
    const tenant = await createPlanTenant(stack, "Race", "free");
    const body = invoiceSingle(tenant.invoiceId, "race", invoiceWithRows(ROWS));
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => postJson(stack, tenant.appKey, "/file/sync/single", body)),
    );
    let delivered = 0;
    let refused = 0;
    for (const res of answers) {
      if (res.status === 200) {
        delivered += Number(res.headers.get("x-page-count"));
        await res.arrayBuffer();
        continue;
      }
      const { status, body: error } = await errorOf(res);
      expect([status, error.code]).toEqual([403, "PLAN_PAGE_LIMIT_EXCEEDED"]);
      refused += 1;
    }
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThanOrEqual(30);
    expect(refused).toBeGreaterThan(0);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(delivered);
  }, 300_000);

  it("an async multiple whose files together pass the limit: the files that would cross it fail with PLAN_PAGE_LIMIT_EXCEEDED, the others are delivered, usage = pages delivered ≤ 30", async () => {
    const tenant = await createPlanTenant(stack, "Race async", "free");
    const contents = Array.from({ length: 12 }, (_, i) => ({ fileName: `rows-${i}`, params: invoiceWithRows(ROWS) }));
    const accepted = await acceptOrFail(stack, tenant.appKey, "multiple", {
      designId: tenant.invoiceId,
      version: 1,
      contents,
    });
    const { body } = await pollStatus(stack, tenant.appKey, accepted.requestId, { timeoutMs: 180_000 });
    expect(body.status).toBe("completed");
    const failed = body.failedFiles ?? [];
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed)
      expect([f.code, f.message]).toEqual([
        "PLAN_PAGE_LIMIT_EXCEEDED",
        expect.stringMatching(/^The monthly page limit of the plan has been reached \(\d+ of 30 pages used\)\.$/),
      ]);
    expect(body.files.length + failed.length).toBe(12);
    const delivered = body.files.reduce((n, f) => n + f.pageCount!, 0);
    expect(delivered).toBeLessThanOrEqual(30);
    await settled(stack);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(delivered);
  }, 300_000);
});

describe("params nesting", () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
  const withParams = (params: string, mode: "single" | "multiple", designId: string) =>
    mode === "single"
      ? `{"designId":"${designId}","version":1,"content":{"fileName":"deep","params":${params}}}`
      : `{"designId":"${designId}","version":1,"contents":[{"fileName":"deep","params":${params}}]}`;

  it("5,000 levels are 400 VALIDATION_FAILED naming the path, sync and async, never a 500", async () => {
    const tenant = await createPlanTenant(stack, "Deep", "standard");
    for (const [path, mode, prefix] of [
      ["/file/sync/single", "single", "params.a"],
      ["/file/async/multiple", "multiple", "contents.0.params.a"],
    ] as const) {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method: "POST",
        headers: { appkey: tenant.appKey, "content-type": "application/json" },
        body: withParams(deep(5000), mode, tenant.invoiceId),
      });
      const { status, body } = await errorOf(res);
      expect([status, body.code], path).toEqual([400, "VALIDATION_FAILED"]);
      const [detail] = body.details as { field: string; message: string }[];
      expect(detail!.field.startsWith(`${prefix}.a.a`), detail!.field).toBe(true);
      expect(detail!.message).toBe("nests deeper than 64 levels");
    }
    // 60 levels are fine: the deep value is an unknown key, which rendering ignores.
    const params = JSON.stringify(invoiceItem("x").params).replace(/^\{/, `{"extra":${deep(60)},`);
    const ok = await fetch(`${stack.baseUrl}/file/sync/single`, {
      method: "POST",
      headers: { appkey: tenant.appKey, "content-type": "application/json" },
      body: withParams(params, "single", tenant.invoiceId),
    });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  }, 60_000);
});

describe("passcode hashing", () => {
  it("a 100-file async request with passcodes answers 202 within the 29 s budget while /health/check keeps answering; the stored hashes verify", async () => {
    const tenant = await createPlanTenant(stack, "Passcodes", "standard");
    const contents = invoiceItems(100, "pc").map((c) => ({ ...c, passcodeEnabled: true }));
    let polling = true;
    const latencies: number[] = [];
    const health = (async () => {
      while (polling) {
        const started = Date.now();
        const res = await fetch(`${stack.baseUrl}/health/check`);
        await res.arrayBuffer();
        latencies.push(Date.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = Date.now();
    let accepted: AcceptedJson;
    try {
      accepted = await acceptOrFail(stack, tenant.appKey, "multiple", {
        designId: tenant.invoiceId,
        version: 1,
        contents,
      }).catch((err: Error) => {
        throw new Error(`${err.message}\n--- stack output (tail) ---\n${stack.output().slice(-3000)}`);
      });
    } finally {
      polling = false;
      await health;
    }
    expect(Date.now() - started).toBeLessThan(29_000);
    expect(latencies.length).toBeGreaterThan(5);
    // 100 synchronous scrypt hashes held the event loop for seconds; now no health check waits long.
    expect(Math.max(...latencies)).toBeLessThan(1500);
    useStackEmulators(stack.dataDir);
    const first = accepted.files[0]!;
    const record = await getFileRecord(accepted.requestId, first.fileId);
    expect(record?.passcodeHash).toMatch(/^scrypt-n1024\$/);
    expect(await verifyPasscode(first.share.passcode!, record!.passcodeHash!)).toBe(true);
    expect(await verifyPasscode("wrong-pass", record!.passcodeHash!)).toBe(false);
    expect(new Set(accepted.files.map((f) => f.share.passcode)).size).toBe(100);
  }, 120_000);
});
