import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoiceOf } from "../helpers/async-fixtures.ts";
import { errorOf, renderQueue } from "../helpers/async-http.ts";
import {
  invoiceParamsOfBytes,
  invoiceSingle,
  type OversizedAnswer,
  postJson,
  postOversizedBody,
  statusOf,
  tally,
} from "../helpers/limits-http.ts";
import { burst, pagesUsedNow, rendererStats, type ServiceClock, serviceClock } from "../helpers/limits-stack.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";

/**
 * Rate limits (shared/limits/README.md#rate-limits) over HTTP, with the spec's own numbers (PLATEN_RATE_LIMITS
 * unset): sync 30, async 100, retrieval 100, status 300 requests a minute per workspace and class,
 * 429 RATE_LIMITED with Retry-After, plus the request-size limits (413, 1,000,000
 * bytes of params). Each test starts in a minute window no earlier test used (the service
 * clock is moved with the local test hook), so a window boundary never splits a burst.
 */

let stack: RunningStack;
let clock: ServiceClock;
type SeededWorkspace = RunningStack["localJson"]["workspaces"][number];
let demo: SeededWorkspace;
let second: SeededWorkspace;

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_RATE_LIMITS: "" } });
  clock = serviceClock(stack);
  [demo, second] = stack.localJson.workspaces as [SeededWorkspace, SeededWorkspace];
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

const MiB = 1024 * 1024;
const UNKNOWN_REQUEST = "ZZZZZZZZZZZZZZZZ";

const get = (appKey: string, path: string) => api(stack, appKey)(path);

/** A sync request refused by body validation: counted by the limiter, then no work at all. */
const invalidSync = (appKey: string, mode: "single" | "multiple" = "single") =>
  postJson(stack, appKey, `/file/sync/${mode}`, {});

/** error body (README.md#errors) of a 429, checked against the header; returns Retry-After as a number. */
async function expectRateLimited(res: Response, lang: "en" | "ja" = "en"): Promise<number> {
  const { status, headers, body } = await errorOf(res);
  expect([status, body.code]).toEqual([429, "RATE_LIMITED"]);
  const header = headers.get("retry-after");
  expect(header).toMatch(/^[1-9]\d*$/); // RFC 9110 10.2.3: delay-seconds
  const retryAfter = Number(header);
  expect(body.retryAfter).toBe(retryAfter);
  expect(body.statusCode).toBe(429);
  expect(body.details).toEqual([]);
  expect(headers.get("content-language")).toBe(lang);
  expect(body.docsUrl.endsWith("/docs/errors#rate_limited")).toBe(true);
  expect(new URL(body.docsUrl).pathname.startsWith("/ja/")).toBe(lang === "ja");
  return retryAfter;
}

/** Seconds left of a window ending at `end`, for a request sent between `before` and `after`. */
const secondsLeft = (end: number, before: number, after: number) => ({
  min: Math.ceil((end - after) / 1000),
  max: Math.ceil((end - before) / 1000),
});

describe("rate limits per workspace and class (see shared/limits/README.md#rate-limits)", () => {
  it("status: 300 a minute (the spec default), the 301st is 429; the sync, async and retrieval classes are counted apart", async () => {
    const tenant = await createTenant(stack, "Rate status");
    await clock.enterFreshWindow(1);
    const answers = await burst(300, 16, () => statusOf(get(tenant.appKey, `/file/status/${UNKNOWN_REQUEST}`)));
    expect(tally(answers)).toEqual({ 404: 300 });

    await expectRateLimited(await get(tenant.appKey, `/file/status/${UNKNOWN_REQUEST}`));

    // The status limit touched nothing else: sync still renders, async accepts, lists answer.
    const sync = await postJson(stack, tenant.appKey, "/file/sync/single", invoiceSingle(tenant.invoiceId));
    expect(sync.status).toBe(200);
    expect(sync.headers.get("content-type")).toBe("application/pdf");
    await sync.arrayBuffer();
    expect(await statusOf(postJson(stack, tenant.appKey, "/file/async/single", invoiceSingle(tenant.invoiceId)))).toBe(
      202,
    );
    expect(await statusOf(get(tenant.appKey, "/file/designs"))).toBe(200);
    // …while status stays refused for the rest of the window.
    expect(await statusOf(get(tenant.appKey, `/file/status/${UNKNOWN_REQUEST}`))).toBe(429);
  });

  it("Retry-After and body retryAfter are the seconds left of the minute window, against a moved service clock", async () => {
    const tenant = await createTenant(stack, "Rate retry-after");
    const window = await clock.enterFreshWindow(10);
    expect(tally(await burst(30, 10, () => statusOf(invalidSync(tenant.appKey))))).toEqual({ 400: 30 });

    const body = invoiceSingle(tenant.invoiceId);
    let before = clock.now();
    let res = await postJson(stack, tenant.appKey, "/file/sync/single", body);
    let after = clock.now();
    const retryAfter = await expectRateLimited(res);
    const expected = secondsLeft(window.end, before, after);
    expect(retryAfter).toBeGreaterThanOrEqual(expected.min);
    expect(retryAfter).toBeLessThanOrEqual(expected.max);
    expect(retryAfter).toBeGreaterThan(40); // 10 s into the window plus the burst: about 50 s left

    // 2.5 s before the window ends the answer says 3 (never 0, never the full minute).
    await clock.setOffset(window.end - 2_500 - Date.now());
    before = clock.now();
    res = await postJson(stack, tenant.appKey, "/file/sync/single", body);
    after = clock.now();
    const late = await expectRateLimited(res);
    const lateExpected = secondsLeft(window.end, before, after);
    expect(late).toBeGreaterThanOrEqual(Math.max(1, lateExpected.min));
    expect(late).toBeLessThanOrEqual(lateExpected.max);

    // README.md#errors: a 429 may be resent unchanged after the waiting time.
    await clock.setOffset(window.end + 100 - Date.now());
    res = await postJson(stack, tenant.appKey, "/file/sync/single", body);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it("sync: 30 a minute shared by single and multiple, never exceeded by concurrent requests; refused before any work; Japanese message", async () => {
    await clock.enterFreshWindow(1);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => statusOf(invalidSync(demo.appKey, i % 2 ? "multiple" : "single"))),
    );
    expect(tally(answers)).toEqual({ 400: 30, 429: 10 });

    // Nothing else renders now (earlier async work has drained), so any render would be this request's.
    const queue = renderQueue(stack);
    await queue.drained();
    queue.close();
    const statsBefore = await rendererStats(stack);
    const pagesBefore = await pagesUsedNow(stack, demo.id, new Date(clock.now()));
    const res = await postJson(stack, demo.appKey, "/file/sync/single", invoiceSingle(invoiceOf(demo).id), {
      "Accept-Language": "ja",
    });
    const retryAfter = await expectRateLimited(res.clone(), "ja");
    const { body } = await errorOf(res);
    expect(body.message).toBe(`このワークスペースのレート制限を超えました。${retryAfter} 秒後に再試行してください。`);
    expect((await rendererStats(stack)).renders).toBe(statsBefore.renders);
    expect(await pagesUsedNow(stack, demo.id, new Date(clock.now()))).toBe(pagesBefore);

    // English by default, the seconds in the message.
    const en = await errorOf(await invalidSync(demo.appKey));
    expect(en.body.message).toBe(`Rate limit exceeded for this workspace. Retry after ${en.body.retryAfter} seconds.`);
  });

  it("two workspaces are limited apart: Demo is refused while Second still renders", async () => {
    await clock.enterFreshWindow(1);
    expect(tally(await burst(31, 8, () => statusOf(invalidSync(demo.appKey))))).toEqual({ 400: 30, 429: 1 });
    expect(await statusOf(postJson(stack, demo.appKey, "/file/sync/single", invoiceSingle(invoiceOf(demo).id)))).toBe(
      429,
    );
    const res = await postJson(stack, second.appKey, "/file/sync/single", invoiceSingle(invoiceOf(second).id));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-page-count")).toBe("1");
    await res.arrayBuffer();
  });

  it("async: 100 a minute and retrieval (download, parameters, design list): 100 a minute; status is not affected", async () => {
    const tenant: Tenant = await createTenant(stack, "Rate async retrieval");
    await clock.enterFreshWindow(1);
    const accepted = await burst(101, 16, (i) =>
      statusOf(postJson(stack, tenant.appKey, `/file/async/${i % 2 ? "multiple" : "single"}`, {})),
    );
    expect(tally(accepted)).toEqual({ 400: 100, 429: 1 });
    await expectRateLimited(
      await postJson(stack, tenant.appKey, "/file/async/single", invoiceSingle(tenant.invoiceId)),
    );

    const paths = [
      "/file/designs",
      `/file/design/parameter/${tenant.invoiceId}`,
      `/file/download/${UNKNOWN_REQUEST}`,
      `/file/download/${UNKNOWN_REQUEST}/${UNKNOWN_REQUEST}`,
    ];
    const retrieved = await burst(101, 16, (i) => statusOf(get(tenant.appKey, paths[i % paths.length]!)));
    expect(retrieved.filter((s) => s === 429)).toHaveLength(1);
    expect(retrieved.filter((s) => s === 200 || s === 404)).toHaveLength(100);
    await expectRateLimited(await get(tenant.appKey, `/file/design/parameter/${tenant.invoiceId}`));

    expect(await statusOf(get(tenant.appKey, `/file/status/${UNKNOWN_REQUEST}`))).toBe(404);
  });

  it("preview: 60 a minute per workspace in a class of its own (the design API); the design list is not limited", async () => {
    const tenant: Tenant = await createTenant(stack, "Rate preview");
    useStackEmulators(stack.dataDir);
    const client = await makeConfidentialClient(tenant.workspaceId, ["designs:read"]);
    const token = await clientCredentialsToken(stack, client, "designs:read");
    const preview = (body: unknown) =>
      fetch(`${stack.baseUrl}/designs/preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    await clock.enterFreshWindow(1);
    // Refused bodies count (the window is taken before the body is read) and render nothing.
    expect(tally(await burst(61, 8, () => statusOf(preview({}))))).toEqual({ 400: 60, 429: 1 });
    await expectRateLimited(await preview({ designId: tenant.invoiceId, version: 1 }));
    const list = await fetch(`${stack.baseUrl}/designs`, { headers: { authorization: `Bearer ${token}` } });
    expect(list.status).toBe(200);
    // The generation classes are untouched by previews.
    expect(await statusOf(get(tenant.appKey, "/file/designs"))).toBe(200);
  });

  it("the health check is never limited (no authentication, no class), even with the key of a limited workspace", async () => {
    await clock.enterFreshWindow(1);
    await burst(31, 8, () => statusOf(invalidSync(demo.appKey)));
    expect(await statusOf(invalidSync(demo.appKey))).toBe(429);
    const answers = await burst(350, 25, async (i) => {
      const res = await fetch(`${stack.baseUrl}/health/check`, { headers: i % 2 ? { appkey: demo.appKey } : {} });
      await res.arrayBuffer();
      return res.headers.has("retry-after") ? -res.status : res.status;
    });
    expect(tally(answers)).toEqual({ 200: 350 });
  });
});

describe("request size limits (see shared/limits/README.md#service-limits)", () => {
  it("413 for a 51 MB body, with Content-Length or chunked, read by the client before the body is complete; the stack keeps serving", async () => {
    const tenant = await createTenant(stack, "Size 413");
    const headers = { appkey: tenant.appKey };
    const totalBytes = 51 * MiB;
    /** What a client saw: the status, or its connection error; and whether it came before the body ended. */
    const seen = (a: OversizedAnswer) => ({
      answer: a.error ?? a.status,
      early: a.answeredBeforeBodyEnd,
      quick: a.elapsedMs < 5_000,
    });
    const expected = { answer: 413, early: true, quick: true };

    // Announced: refused from the header, long before 50 MB were sent. Repeated, because a
    // client that loses the answer to a dropped connection does so only some of the time.
    const announced: OversizedAnswer[] = [];
    for (let i = 0; i < 10; i++) {
      announced.push(
        await postOversizedBody(`${stack.baseUrl}/file/sync/single`, {
          chunked: false,
          totalBytes,
          holdAfterBytes: 2 * MiB,
          waitMs: 5_000,
          headers,
        }),
      );
    }
    // Soft, so the chunked case and the recovery below are still checked when this fails.
    expect.soft(announced.map(seen)).toEqual(Array(10).fill(expected));
    expect(Math.max(...announced.map((a) => a.bytesWritten))).toBeLessThan(50 * MiB);

    // Chunked: refused once the stream passes 50 MB, without waiting for its end.
    const chunked: OversizedAnswer[] = [];
    for (const path of ["/file/sync/multiple", "/file/async/single"]) {
      chunked.push(
        await postOversizedBody(`${stack.baseUrl}${path}`, {
          chunked: true,
          totalBytes,
          holdAfterBytes: 50 * MiB + 512 * 1024,
          waitMs: 5_000,
          headers,
        }),
      );
    }
    expect.soft(chunked.map(seen)).toEqual(Array(2).fill(expected));

    expect(await statusOf(fetch(`${stack.baseUrl}/health/check`))).toBe(200);
    const res = await postJson(stack, tenant.appKey, "/file/sync/single", invoiceSingle(tenant.invoiceId));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    await res.arrayBuffer();
  });

  it("params of 1,000,001 bytes are 400 PARAMS_TOO_LARGE (not 413); exactly 1,000,000 bytes still render", async () => {
    const tenant = await createTenant(stack, "Size params");
    const over = await errorOf(
      await postJson(
        stack,
        tenant.appKey,
        "/file/sync/single",
        invoiceSingle(tenant.invoiceId, "over", invoiceParamsOfBytes(1_000_001)),
      ),
    );
    expect([over.status, over.body.code]).toEqual([400, "PARAMS_TOO_LARGE"]);
    expect(over.body.details.map((d) => [d.field, d.code])).toEqual([["params", "PARAMS_TOO_LARGE"]]);

    const multiple = {
      designId: tenant.invoiceId,
      version: 1,
      contents: [
        { fileName: "small", params: invoiceParamsOfBytes(5_000) },
        { fileName: "over", params: invoiceParamsOfBytes(1_000_001) },
      ],
    };
    const overAsync = await errorOf(await postJson(stack, tenant.appKey, "/file/async/multiple", multiple));
    expect([overAsync.status, overAsync.body.code]).toEqual([400, "PARAMS_TOO_LARGE"]);
    expect(overAsync.body.details.map((d) => d.field)).toEqual(["contents.1.params"]);

    const atLimit = await postJson(
      stack,
      tenant.appKey,
      "/file/sync/single",
      invoiceSingle(tenant.invoiceId, "at-limit", invoiceParamsOfBytes(1_000_000)),
    );
    expect(atLimit.status).toBe(200);
    expect(atLimit.headers.get("x-page-count")).toBe("1");
    await atLimit.arrayBuffer();
  });
});
