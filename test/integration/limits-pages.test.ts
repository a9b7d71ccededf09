import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import type { UsageReconciliation } from "#shared/generation/settle/index.ts";
import { pageItemKey } from "#shared/limits/page-shards.ts";
import { invoiceItem, invoiceOf, mismatchedItem } from "../helpers/async-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { type AcceptedJson, errorOf, pollStatus, renderQueue } from "../helpers/async-http.ts";
import { invoiceMultiple, invoiceSingle, invoiceWithRows, postJson } from "../helpers/limits-http.ts";
import {
  adminJson,
  adminUsage,
  createPlanTenant,
  type PlanTenant,
  pagesUsedNow,
  publishSlowDesign,
  rendererStats,
  serviceClock,
  slowParams,
  type UsageJson,
  waitForRenderer,
} from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, settled, startStack } from "../helpers/local-stack.ts";
import { inspectPdf } from "../helpers/pdf-inspect.ts";
import { publishFolder, sampleDir } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping } from "../helpers/sync-http.ts";
import { adminCliArgs } from "../helpers/local-build.ts";

/**
 * Monthly page quotas (see shared/errors/catalogue.ts, shared/limits/README.md#service-limits) and the
 * Idempotency-Key (see infra/README.md#cross-origin-access) over HTTP, with the admin CLI as the operator's
 * view (`usage --json`). The standard plan's included pages are lowered to 3 (PLATEN_PLAN_PAGES) so overage
 * shows after a few renders; the rate limits stay raised (local-stack default) because these tests render a
 * lot. The stack is restarted twice at the end: a clean stop, then a crash.
 */

/**
 * Pages of the slow design: ~3 s of Chromium on a quiet machine (~7 ms a page), long enough to act
 * while it renders (the test's next step is one request, answered in milliseconds; load slows both).
 */
const SLOW_PAGES = 400;

/** Standard: 3 pages included (overage after a few renders); `tiny`: a stopping plan of 1 page. */
const ENV = {
  PLATEN_PLAN_PAGES: JSON.stringify({
    standard: { monthlyPages: 3, stops: false },
    tiny: { monthlyPages: 1, stops: true },
  }),
};

type SeededWorkspace = RunningStack["localJson"]["workspaces"][number];
let stack: RunningStack;
let demo: SeededWorkspace;
let second: SeededWorkspace;
/**
 * Workspaces with counted pages, compared across the restart: a stopping plan's month item (free) and a
 * standard plan's request items, of one-page files (sync and async) and of multi-page ones. One workspace
 * a kind: each comparison costs two runs of the admin CLI (~2 s of CPU apiece).
 */
const counted: string[] = [];
/** A committed sync Idempotency-Key, replayed after the restart. */
let replay: { tenant: PlanTenant; key: string; body: unknown; requestId: string };
/** The workspace with the slow design (published once, used again after the restart). */
let slow: { tenant: PlanTenant; design: { id: string; version: number } };

beforeAll(async () => {
  stack = await startStack({ env: ENV });
  [demo, second] = stack.localJson.workspaces as [SeededWorkspace, SeededWorkspace];
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

const sync = (appKey: string, body: unknown, headers: Record<string, string> = {}, query = "") =>
  postJson(stack, appKey, `/file/sync/single${query}`, body, headers);
const usage = (workspaceId: string) => adminUsage(stack, workspaceId, ENV);
const standardTenant = (name: string) => createPlanTenant(stack, name, "standard");

/**
 * A sync multiple of one file of `pages` pages of the slow design: fills a quota with one cheap
 * render where one invoice a page took as many renders as pages.
 */
async function fillPages(appKey: string, workspaceId: string, pages: number): Promise<Response> {
  const design = await publishSlowDesign(stack, workspaceId);
  return postJson(stack, appKey, "/file/sync/multiple", {
    designId: design.id,
    version: design.version,
    contents: [{ fileName: "fill", params: slowParams(pages) }],
  });
}

/** Waits until the render worker has nothing left (async renders settle their pages). */
async function drainRenders(): Promise<void> {
  const queue = renderQueue(stack);
  try {
    await queue.drained();
  } finally {
    queue.close();
  }
}

async function expectQuotaRefusal(res: Response, lang: "en" | "ja" = "en") {
  const { status, headers, body } = await errorOf(res);
  expect([status, body.code]).toEqual([403, "PLAN_PAGE_LIMIT_EXCEEDED"]);
  expect(headers.get("content-language")).toBe(lang);
  expect(headers.get("request-id")).toBeNull();
  expect(body.retryAfter).toBeUndefined();
  return body;
}

describe("monthly page quotas (see shared/limits/README.md#service-limits)", () => {
  it("free plan: stops at 30 pages; of 5 concurrent requests at the edge exactly one is admitted; async acceptance is refused with 403 too", async () => {
    counted.push(second.id);
    expect(await usage(second.id)).toEqual({
      workspaceId: second.id,
      month: expect.any(String),
      plan: "free",
      pagesUsed: 0,
      limit: 30,
      stops: true,
      overage: 0,
    });
    const invoiceId = invoiceOf(second).id;
    const bulk = await fillPages(second.appKey, second.id, 28);
    expect([bulk.status, bulk.headers.get("x-page-count")]).toEqual([200, "28"]);
    await bulk.arrayBuffer();
    const key = randomUUID();
    const one = await sync(second.appKey, invoiceSingle(invoiceId, "29th"), { "Idempotency-Key": key });
    expect(one.status).toBe(200);
    await one.arrayBuffer();
    expect(await pagesUsedNow(stack, second.id)).toBe(29);

    const edge = await Promise.all(
      Array.from({ length: 5 }, (_, i) => sync(second.appKey, invoiceSingle(invoiceId, `edge-${i}`))),
    );
    expect(edge.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403]);
    for (const res of edge) {
      if (res.status === 200) await res.arrayBuffer();
      else
        expect((await expectQuotaRefusal(res)).message).toMatch(
          /^The monthly page limit of the plan has been reached \(\d+ of 30 pages used\)\.$/,
        );
    }
    // Refused before acceptance: never a 202 that fails later in the status.
    await expectQuotaRefusal(await postJson(stack, second.appKey, "/file/async/single", invoiceSingle(invoiceId)));
    await expectQuotaRefusal(
      await postJson(stack, second.appKey, "/file/async/multiple", invoiceMultiple(invoiceId, 2)),
    );
    await expectQuotaRefusal(await sync(second.appKey, invoiceSingle(invoiceId), {}, "?response=json"));
    const ja = await expectQuotaRefusal(
      await sync(second.appKey, invoiceSingle(invoiceId), { "Accept-Language": "ja" }),
      "ja",
    );
    expect(ja.message).toBe("プランの月間ページ上限に達しました（30 ページ中 30 ページ使用済み）。");
    // A replay is no new work: it still answers at the limit, and counts nothing.
    const replayed = await sync(second.appKey, invoiceSingle(invoiceId, "29th"), { "Idempotency-Key": key });
    expect([replayed.status, replayed.headers.get("request-id")]).toEqual([200, one.headers.get("request-id")]);
    await replayed.arrayBuffer();

    expect(await usage(second.id)).toMatchObject({ plan: "free", pagesUsed: 30, limit: 30, stops: true, overage: 0 });
  });

  it("free plan: a multi-page request whose real pages would cross the limit is refused (403) and counts nothing; one that fits still renders", async () => {
    // `workspace create` of the admin CLI, then the invoice published into it.
    const created = await adminJson<{ id: string; name: string; plan: string; appKey: string }>(
      stack,
      ["workspace", "create", "--name", "Free crossing", "--plan", "free"],
      ENV,
    );
    expect(created).toMatchObject({ name: "Free crossing", plan: "free" });
    const invoice = await publishFolder(stack, created.id, sampleDir("invoice-ja"));
    // Long enough to take several pages, short enough that two stay below 30 (the invoice's QR block included).
    const rows = invoiceSingle(invoice.id, "rows", invoiceWithRows(300));

    const first = await sync(created.appKey, rows);
    const pages = Number(first.headers.get("x-page-count"));
    await first.arrayBuffer();
    expect(pages).toBeGreaterThan(1);
    expect(pages).toBeLessThan(15); // two of them stay below 30
    await (await sync(created.appKey, rows)).arrayBuffer();
    const topUp = await fillPages(created.appKey, created.id, 29 - 2 * pages);
    expect(topUp.status).toBe(200);
    await topUp.arrayBuffer();
    expect(await pagesUsedNow(stack, created.id)).toBe(29);

    // Admitted (one page reserved fits), rendered, then refused: its real pages would pass 30.
    const crossing = await sync(created.appKey, rows);
    expect((await expectQuotaRefusal(crossing)).message).toBe(
      "The monthly page limit of the plan has been reached (29 of 30 pages used).",
    );
    expect(await pagesUsedNow(stack, created.id)).toBe(29);
    const fits = await sync(created.appKey, invoiceSingle(invoice.id));
    expect([fits.status, fits.headers.get("x-page-count")]).toEqual([200, "1"]);
    await fits.arrayBuffer();
    await expectQuotaRefusal(await sync(created.appKey, invoiceSingle(invoice.id)));
    expect(await usage(created.id)).toMatchObject({ pagesUsed: 30, limit: 30 });
  });

  it("free plan: of 5 concurrent async acceptances at the edge exactly one is accepted and completes; the others are 403, never a failed status", async () => {
    const tenant = await createPlanTenant(stack, "Free async edge", "free");
    const bulk = await fillPages(tenant.appKey, tenant.workspaceId, 29);
    expect([bulk.status, bulk.headers.get("x-page-count")]).toEqual([200, "29"]);
    await bulk.arrayBuffer();
    const edge = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        postJson(stack, tenant.appKey, "/file/async/single", invoiceSingle(tenant.invoiceId, `edge-${i}`)),
      ),
    );
    expect(edge.map((r) => r.status).sort()).toEqual([202, 403, 403, 403, 403]);
    for (const res of edge) {
      if (res.status !== 202) await expectQuotaRefusal(res);
      else
        expect(
          (await pollStatus(stack, tenant.appKey, ((await res.json()) as AcceptedJson).requestId)).body.status,
        ).toBe("completed");
    }
    await drainRenders();
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(30);
  });

  it("a request refused for its own content (400) never takes the last page from a valid request sent with it", async () => {
    // A fresh 1-page stopping plan per round: the valid request is always below the limit.
    const rounds: { statuses: number[]; used: number }[] = [];
    for (let round = 0; round < 6; round++) {
      const tenant = await createPlanTenant(stack, `Tiny ${round}`, "tiny");
      const invalid = Array.from({ length: 12 }, (_, i) =>
        sync(tenant.appKey, { designId: tenant.invoiceId, version: 1, content: mismatchedItem(`bad-${i}`) }),
      );
      const answers = await Promise.all([...invalid, sync(tenant.appKey, invoiceSingle(tenant.invoiceId, "valid"))]);
      for (const res of answers) await res.arrayBuffer();
      rounds.push({
        statuses: [...new Set(answers.slice(0, -1).map((r) => r.status))].concat(answers.at(-1)!.status),
        used: await pagesUsedNow(stack, tenant.workspaceId),
      });
    }
    // Per round: every invalid one 400, the valid one 200 and its page counted.
    expect(rounds).toEqual(Array(6).fill({ statuses: [400, 200], used: 1 }));
  });

  it("pages are counted per calendar month (UTC): next month the exhausted free plan renders again; `usage --month` reports each month", async () => {
    const clock = serviceClock(stack);
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1);
    await clock.setOffset(nextMonth - Date.now());
    try {
      const res = await sync(second.appKey, invoiceSingle(invoiceOf(second).id, "next month"));
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      await clock.setOffset(0);
    }
    const month = (t: number) => new Date(t).toISOString().slice(0, 7);
    const report = (m: string) => adminJson<UsageJson>(stack, ["usage", "--workspace", second.id, "--month", m], ENV);
    expect(await report(month(nextMonth))).toMatchObject({ month: month(nextMonth), pagesUsed: 1, limit: 30 });
    expect(await report(month(now.getTime()))).toMatchObject({ month: month(now.getTime()), pagesUsed: 30 });
    await expectQuotaRefusal(await sync(second.appKey, invoiceSingle(invoiceOf(second).id)));
  });

  it("standard plan: counts overage beyond the included pages and never stops", async () => {
    counted.push(demo.id);
    const invoiceId = invoiceOf(demo).id;
    expect(await usage(demo.id)).toMatchObject({ plan: "standard", pagesUsed: 0, limit: 3, stops: false, overage: 0 });
    for (let i = 0; i < 5; i++) {
      const res = await sync(demo.appKey, invoiceSingle(invoiceId, `std-${i}`));
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    expect(await usage(demo.id)).toMatchObject({ pagesUsed: 5, limit: 3, stops: false, overage: 2 });

    const accepted = await postJson(stack, demo.appKey, "/file/async/multiple", invoiceMultiple(invoiceId, 2));
    expect(accepted.status).toBe(202);
    const { requestId } = (await accepted.json()) as AcceptedJson;
    expect((await pollStatus(stack, demo.appKey, requestId)).body.status).toBe("completed");
    await drainRenders();
    const report = await usage(demo.id);
    expect(report).toMatchObject({ pagesUsed: 7, overage: 7 - 3 });
  });

  it("a multi-page document (400 明細 rows) counts its real pages: X-Page-Count, the PDF, response=json and async agree with the usage", async () => {
    const tenant = await standardTenant("Multi-page");
    counted.push(tenant.workspaceId);
    const rows = invoiceSingle(tenant.invoiceId, "rows", invoiceWithRows(400));

    const pdf = await sync(tenant.appKey, rows);
    expect(pdf.status).toBe(200);
    const pages = Number(pdf.headers.get("x-page-count"));
    expect(pages).toBeGreaterThan(5);
    expect((await inspectPdf(new Uint8Array(await pdf.arrayBuffer()))).pageCount).toBe(pages);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(pages);

    const json = await sync(tenant.appKey, rows, {}, "?response=json");
    expect(json.headers.get("x-page-count")).toBe(String(pages));
    expect(((await json.json()) as { files: { pageCount: number }[] }).files.map((f) => f.pageCount)).toEqual([pages]);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(2 * pages);

    const accepted = await postJson(stack, tenant.appKey, "/file/async/single", rows);
    const { requestId } = (await accepted.json()) as AcceptedJson;
    const done = await pollStatus(stack, tenant.appKey, requestId);
    expect(done.body.files.map((f) => f.pageCount)).toEqual([pages]);
    await drainRenders();
    expect(await usage(tenant.workspaceId)).toMatchObject({ pagesUsed: 3 * pages, overage: 3 * pages - 3 });
  });

  it("a failed async file counts no pages; a partly failed multiple counts only its stored files", async () => {
    const tenant = await standardTenant("Failed async");
    const single = await postJson(stack, tenant.appKey, "/file/async/single", {
      designId: tenant.invoiceId,
      version: 1,
      content: mismatchedItem("bad"),
    });
    expect(single.status).toBe(202);
    const failed = await pollStatus(stack, tenant.appKey, ((await single.json()) as AcceptedJson).requestId);
    expect([failed.body.status, failed.body.error?.code]).toEqual(["failed", "PARAMS_TYPE_MISMATCH"]);
    await drainRenders();
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(0);

    const multiple = await postJson(stack, tenant.appKey, "/file/async/multiple", {
      designId: tenant.invoiceId,
      version: 1,
      contents: [invoiceItem("good"), mismatchedItem("bad")],
    });
    const partial = await pollStatus(stack, tenant.appKey, ((await multiple.json()) as AcceptedJson).requestId);
    expect([partial.body.status, partial.body.failedFiles?.length]).toEqual(["completed", 1]);
    await drainRenders();
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(1);
  });

  it("PLAN_NOT_FOUND (403) without a plan, ACTIVE_PLAN_NOT_FOUND (404) for a plan that is not active; nothing counted; `workspace update --plan` fixes it", async () => {
    const noPlan = await createPlanTenant(stack, "No plan", undefined);
    const gold = await createPlanTenant(stack, "Gold", "gold");
    for (const path of ["/file/sync/single", "/file/async/single"]) {
      const missing = await errorOf(await postJson(stack, noPlan.appKey, path, invoiceSingle(noPlan.invoiceId)));
      expect([missing.status, missing.body.code, missing.body.message]).toEqual([
        403,
        "PLAN_NOT_FOUND",
        "The workspace has no plan information.",
      ]);
      const inactive = await errorOf(
        await postJson(stack, gold.appKey, path, invoiceSingle(gold.invoiceId), { "Accept-Language": "ja" }),
      );
      expect([inactive.status, inactive.body.code, inactive.body.message]).toEqual([
        404,
        "ACTIVE_PLAN_NOT_FOUND",
        "有効なプランがありません。",
      ]);
    }
    expect(await usage(noPlan.workspaceId)).toMatchObject({ plan: null, pagesUsed: 0, limit: null });
    expect(await usage(gold.workspaceId)).toMatchObject({ plan: "gold", pagesUsed: 0, limit: null });

    expect(await adminJson(stack, ["workspace", "update", noPlan.workspaceId, "--plan", "free"], ENV)).toEqual({
      id: noPlan.workspaceId,
      plan: "free",
    });
    const res = await sync(noPlan.appKey, invoiceSingle(noPlan.invoiceId));
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(await pagesUsedNow(stack, noPlan.workspaceId)).toBe(1);
  });
});

describe("Idempotency-Key (see infra/README.md#cross-origin-access)", () => {
  it("sync: a repeat replays the stored file (same Request-Id, bytes, X-Page-Count) without rendering or counting again; another body with the key is 400 IDEMPOTENCY_KEY_REUSED", async () => {
    const preflight = await fetch(`${stack.baseUrl}/file/sync/single`, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example", "Access-Control-Request-Headers": "idempotency-key" },
    });
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Idempotency-Key");

    const tenant = await standardTenant("Idempotent sync");
    const key = randomUUID();
    const body = invoiceSingle(tenant.invoiceId, "idempotent", invoiceWithRows(60));
    await drainRenders();
    const before = await rendererStats(stack);
    const first = await sync(tenant.appKey, body, { "Idempotency-Key": key });
    expect(first.status).toBe(200);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    const requestId = first.headers.get("request-id")!;
    const pages = Number(first.headers.get("x-page-count"));
    expect(pages).toBeGreaterThan(1);
    const rendered = await rendererStats(stack);
    expect(rendered.renders).toBe(before.renders + 1);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(pages);

    const again = await sync(tenant.appKey, body, { "Idempotency-Key": key });
    expect(again.status).toBe(200);
    expect(again.headers.get("request-id")).toBe(requestId);
    expect(again.headers.get("x-page-count")).toBe(String(pages));
    expect(again.headers.get("content-disposition")).toBe(first.headers.get("content-disposition"));
    expect(decodeFileMapping(again.headers.get("x-file-mapping"))).toEqual(
      decodeFileMapping(first.headers.get("x-file-mapping")),
    );
    expect(Buffer.from(await again.arrayBuffer()).equals(firstBytes)).toBe(true);
    expect((await rendererStats(stack)).renders).toBe(rendered.renders);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(pages);

    const tooLong = await errorOf(await sync(tenant.appKey, body, { "Idempotency-Key": "k".repeat(256) }));
    expect([tooLong.status, tooLong.body.code, tooLong.body.details.map((d) => d.field)]).toEqual([
      400,
      "VALIDATION_FAILED",
      ["Idempotency-Key"],
    ]);

    const reused = await errorOf(
      await sync(
        tenant.appKey,
        { ...body, content: { ...body.content, fileName: "another name" } },
        { "Idempotency-Key": key },
      ),
    );
    expect([reused.status, reused.body.code]).toEqual([400, "IDEMPOTENCY_KEY_REUSED"]);
    expect(reused.body.message).toBe("This Idempotency-Key was already used with a different request body.");
    expect((await rendererStats(stack)).renders).toBe(rendered.renders);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(pages);
    replay = { tenant, key, body, requestId };
  });

  it("async: a repeat answers the same requestId and files; pages are counted once; keys are scoped to the workspace", async () => {
    const tenant = await standardTenant("Idempotent async");
    const other = await standardTenant("Idempotent async other");
    const key = randomUUID();
    const body = invoiceSingle(tenant.invoiceId, "idempotent async");
    const first = await postJson(stack, tenant.appKey, "/file/async/single", body, { "Idempotency-Key": key });
    expect(first.status).toBe(202);
    const accepted = (await first.json()) as AcceptedJson;
    const again = await postJson(stack, tenant.appKey, "/file/async/single", body, { "Idempotency-Key": key });
    expect(again.status).toBe(202);
    expect(again.headers.get("request-id")).toBe(accepted.requestId);
    expect((await again.json()) as AcceptedJson).toEqual(accepted);

    expect((await pollStatus(stack, tenant.appKey, accepted.requestId)).body.status).toBe("completed");
    const late = await postJson(stack, tenant.appKey, "/file/async/single", body, { "Idempotency-Key": key });
    expect(((await late.json()) as AcceptedJson).requestId).toBe(accepted.requestId);
    await drainRenders();
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(1);

    // A key is honoured for 24 hours: a day later the same key and body are a new request.
    const clock = serviceClock(stack);
    await clock.setOffset(24 * 3600_000 + 60_000);
    try {
      const dayLater = await postJson(stack, tenant.appKey, "/file/async/single", body, { "Idempotency-Key": key });
      expect(dayLater.status).toBe(202);
      expect(((await dayLater.json()) as AcceptedJson).requestId).not.toBe(accepted.requestId);
    } finally {
      await clock.setOffset(0);
    }

    // The same key in another workspace is another request.
    const elsewhere = await postJson(
      stack,
      other.appKey,
      "/file/async/single",
      invoiceSingle(other.invoiceId, "idempotent async"),
      { "Idempotency-Key": key },
    );
    expect(elsewhere.status).toBe(202);
    expect(((await elsewhere.json()) as AcceptedJson).requestId).not.toBe(accepted.requestId);
  });

  it("409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After while the first (slow) sync request with the key still runs; afterwards the replay", async () => {
    const tenant = await standardTenant("Idempotent in progress");
    slow = { tenant, design: await publishSlowDesign(stack, tenant.workspaceId) };
    const key = randomUUID();
    const body = {
      designId: slow.design.id,
      version: slow.design.version,
      content: { fileName: "slow", params: slowParams(SLOW_PAGES) },
    };
    await drainRenders();
    let firstDone = false;
    const first = sync(tenant.appKey, body, { "Idempotency-Key": key }).finally(() => {
      firstDone = true;
    });
    expect((await waitForRenderer(stack, (s) => s.busy > 0, 10_000)).busy).toBeGreaterThan(0);

    const during = await errorOf(await sync(tenant.appKey, body, { "Idempotency-Key": key }));
    expect(firstDone).toBe(false);
    expect([during.status, during.body.code]).toEqual([409, "IDEMPOTENCY_KEY_IN_PROGRESS"]);
    expect(during.headers.get("retry-after")).toBe("2");
    expect(during.body.retryAfter).toBe(2);

    const done = await first;
    expect([done.status, done.headers.get("x-page-count")]).toEqual([200, String(SLOW_PAGES)]);
    await done.arrayBuffer();
    const replayed = await sync(tenant.appKey, body, { "Idempotency-Key": key });
    expect(replayed.headers.get("request-id")).toBe(done.headers.get("request-id"));
    await replayed.arrayBuffer();
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(SLOW_PAGES);
  });
});

describe("usage reconcile (shared/limits/README.md#billing-reconciliation)", () => {
  /** `admin usage reconcile --json`: its report and exit code (1 when a request or the month differs). */
  async function reconcile(workspaceId: string): Promise<{ code: number; report: UsageReconciliation }> {
    await settled(stack);
    const args = await adminCliArgs("usage", "reconcile", "--workspace", workspaceId, "--json");
    const out = await new Promise<{ code: number; stdout: string }>((done) =>
      execFile(
        process.execPath,
        args,
        { cwd: resolve(import.meta.dirname, "../.."), env: { ...process.env, ...ENV, PLATEN_DATA_DIR: stack.dataDir } },
        (err, stdout) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
      ),
    );
    return { code: out.code, report: JSON.parse(out.stdout) as UsageReconciliation };
  }

  /** Sync singles (one of many pages) and an async multiple with a multi-page, a one-page and a failed file. */
  async function generateMix(tenant: PlanTenant): Promise<{ asyncRequestId: string; delivered: number }> {
    let delivered = 0;
    for (const body of [
      invoiceSingle(tenant.invoiceId, "one"),
      invoiceSingle(tenant.invoiceId, "rows", invoiceWithRows(60)),
    ]) {
      const res = await sync(tenant.appKey, body);
      expect(res.status).toBe(200);
      delivered += Number(res.headers.get("x-page-count"));
      await res.arrayBuffer();
    }
    const accepted = await postJson(stack, tenant.appKey, "/file/async/multiple", {
      designId: tenant.invoiceId,
      version: 1,
      contents: [{ fileName: "rows", params: invoiceWithRows(60) }, invoiceItem("one"), mismatchedItem("bad")],
    });
    const { requestId } = (await accepted.json()) as AcceptedJson;
    const done = await pollStatus(stack, tenant.appKey, requestId);
    expect([done.body.status, done.body.failedFiles?.length]).toEqual(["completed", 1]);
    delivered += done.body.files.reduce((n, f) => n + (f.pageCount ?? 0), 0);
    await drainRenders();
    return { asyncRequestId: requestId, delivered };
  }

  it("standard: billed = delivered for the month and request by request; a page billed twice names its request and exits 1", async () => {
    const tenant = await standardTenant("Reconcile standard");
    const { asyncRequestId, delivered } = await generateMix(tenant);
    expect(delivered).toBeGreaterThan(4);
    const clean = await reconcile(tenant.workspaceId);
    expect(clean.code).toBe(0);
    expect(clean.report).toMatchObject({ billed: delivered, delivered, pending: [], differences: [], ok: true });

    // One page counted twice on the async request's own item: what the soak found at 10× load.
    useStackEmulators(stack.dataDir);
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: pageItemKey(tenant.workspaceId, clean.report.month, { requestId: asyncRequestId, layout: "request" }),
        UpdateExpression: "ADD pages :one",
        ExpressionAttributeValues: { ":one": 1 },
      }),
    );
    const twice = await reconcile(tenant.workspaceId);
    expect(twice.code).toBe(1);
    expect(twice.report).toMatchObject({ billed: delivered + 1, delivered, ok: false });
    expect(twice.report.differences).toEqual([
      expect.objectContaining({ requestId: asyncRequestId, source: "async", billed: expect.any(Number) }),
    ]);
    const [diff] = twice.report.differences;
    expect(diff!.billed! - diff!.delivered).toBe(1);
  });

  it("a stopping plan: the month's total is compared (its pages share one item), and a difference exits 1", async () => {
    const tenant = await createPlanTenant(stack, "Reconcile personal", "personal");
    const { delivered } = await generateMix(tenant);
    const clean = await reconcile(tenant.workspaceId);
    expect([clean.code, clean.report.billed, clean.report.delivered, clean.report.ok]).toEqual([
      0,
      delivered,
      delivered,
      true,
    ]);
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: pageItemKey(tenant.workspaceId, clean.report.month),
        UpdateExpression: "ADD pages :one",
        ExpressionAttributeValues: { ":one": 1 },
      }),
    );
    const off = await reconcile(tenant.workspaceId);
    expect([off.code, off.report.billed, off.report.ok, off.report.differences]).toEqual([1, delivered + 1, false, []]);
  });
});

describe("after a restart", () => {
  it("usage survives a clean restart (admin usage unchanged); the free plan still stops; a committed key still replays", async () => {
    const before = await Promise.all(counted.map((id) => usage(id)));
    expect(before.every((u) => u.pagesUsed > 0)).toBe(true);
    await stack.stop();
    stack = await startStack({ dataDir: stack.dataDir, env: ENV });
    expect(await Promise.all(counted.map((id) => usage(id)))).toEqual(before);

    await expectQuotaRefusal(await sync(second.appKey, invoiceSingle(invoiceOf(second).id)));
    const res = await sync(replay.tenant.appKey, replay.body, { "Idempotency-Key": replay.key });
    expect([res.status, res.headers.get("request-id")]).toEqual([200, replay.requestId]);
    await res.arrayBuffer();
  });

  it("a key whose request died with the process does not stay IDEMPOTENCY_KEY_IN_PROGRESS once the sync time-out has long passed", async () => {
    const key = randomUUID();
    const body = {
      designId: slow.design.id,
      version: slow.design.version,
      content: { fileName: "crash", params: slowParams(SLOW_PAGES) },
    };
    const inFlight = sync(slow.tenant.appKey, body, { "Idempotency-Key": key }).catch((err: Error) => err);
    expect((await waitForRenderer(stack, (s) => s.busy > 0, 10_000)).busy).toBeGreaterThan(0);
    await stack.kill(); // the process dies mid-render, like a Lambda killed at its time-out
    expect(await inFlight).toBeInstanceOf(Error);
    stack = await startStack({ dataDir: stack.dataDir, env: ENV });

    // Nothing runs the first request any more; 2 minutes later (well past the sync time-out of 60 s
    // (shared/limits/README.md#service-limits)) the client's retry must be able to get its document, not "still
    // being processed" for 24 h.
    await serviceClock(stack).setOffset(120_000);
    const retry = await sync(slow.tenant.appKey, body, { "Idempotency-Key": key });
    const text = retry.status === 200 ? "" : await retry.text();
    expect(retry.status, text).toBe(200);
  });
});
