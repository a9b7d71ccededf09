import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorOf } from "../helpers/async-http.ts";
import { armFaults, faultHits } from "../helpers/faults.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { statusOf, tally } from "../helpers/limits-http.ts";
import { burst, type ServiceClock, serviceClock } from "../helpers/limits-stack.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { loginCookie } from "../helpers/site-fixtures.ts";

/**
 * Design writes and bundle checks are admitted before any work, with the
 * spec's own numbers (PLATEN_RATE_LIMITS unset): create, publish and the draft's save and read count
 * in the `design-write` class (60 a minute per workspace), on the design API and in the studio alike;
 * over it, and over `preview`, the answer is 429 with Retry-After before the body is read, a bundle
 * looked up or checked, or anything rendered or stored. Each test starts in a minute window no
 * earlier test used (the service clock is moved with the local test hook).
 */

let stack: RunningStack;
let clock: ServiceClock;

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_RATE_LIMITS: "" } });
  clock = serviceClock(stack);
});

afterAll(async () => {
  await armFaults(stack, []).catch(() => undefined);
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

const UNKNOWN_DESIGN = "ZZZZZZZZZZZZZZZZ";

/** A JSON form whose template names 40,000 assets the bundle does not have: 23 s to check before. */
const heavyForm = (label: string) => ({
  label,
  parameters: [],
  template: "assets/a\n".repeat(40_000),
});

/** A small valid JSON form. */
const smallForm = (label: string) => ({ label, parameters: [], template: "<p>hello</p>" });

/** A design API caller: a client-credentials token of the tenant with both design scopes. */
async function designCaller(workspaceId: string) {
  const client = await makeConfidentialClient(workspaceId, ["designs:read", "designs:write"]);
  const token = await clientCredentialsToken(stack, client, "designs:read designs:write");
  return (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { "content-type": "application/json" }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
}

/** A 429 RATE_LIMITED with Retry-After equal to the body's retryAfter; answers that number. */
async function expectRateLimited(res: Response): Promise<number> {
  const { status, headers, body } = await errorOf(res);
  expect([status, body.code]).toEqual([429, "RATE_LIMITED"]);
  const header = headers.get("retry-after");
  expect(header).toMatch(/^[1-9]\d*$/);
  expect(body.retryAfter).toBe(Number(header));
  return Number(header);
}

/** Milliseconds a request takes to be answered (its body read). */
async function timed(res: () => Promise<Response>): Promise<{ res: Response; ms: number }> {
  const start = performance.now();
  const answer = await res();
  const copy = answer.clone();
  await answer.arrayBuffer();
  return { res: copy, ms: performance.now() - start };
}

describe("design-write: 60 a minute per workspace for create, publish and the draft's save and read", () => {
  it("counts the design API's writes and draft reads together; the 61st is 429 with Retry-After; other routes and classes are untouched", async () => {
    const tenant: Tenant = await createTenant(stack, "Rate design-write");
    const call = await designCaller(tenant.workspaceId);
    const created = await call("POST", "/designs", smallForm("Before the window"));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };

    await clock.enterFreshWindow(1);
    // Refused requests count too (the window is taken before the body is read): 404s and 422s here.
    const kinds = [
      () => call("GET", `/designs/${UNKNOWN_DESIGN}/draft`),
      () => call("PUT", `/designs/${UNKNOWN_DESIGN}/draft`, smallForm("x")),
      () => call("POST", `/designs/${UNKNOWN_DESIGN}/versions`, smallForm("x")),
      () => call("POST", "/designs", { label: "no template", parameters: [] }),
    ];
    const answers = await burst(60, 8, (i) => statusOf(kinds[i % kinds.length]!()));
    expect(tally(answers)).toEqual({ 404: 45, 422: 15 });

    // Past the limit every route of the class answers 429, even with a valid body.
    const retryAfter = await expectRateLimited(await call("POST", "/designs", smallForm("Over the limit")));
    expect(retryAfter).toBeGreaterThan(30); // about 59 s left of the window
    await expectRateLimited(await call("POST", `/designs/${id}/versions`, smallForm("Over the limit")));
    await expectRateLimited(await call("PUT", `/designs/${id}/draft`, smallForm("Over the limit")));
    await expectRateLimited(await call("GET", `/designs/${id}/draft`));

    // Nothing was created; the other design routes, the preview class and generation still answer.
    const list = await call("GET", "/designs");
    expect(list.status).toBe(200);
    expect(((await list.json()) as { total: number }).total).toBe(2); // the seeded invoice and the one above
    expect(await statusOf(call("PATCH", `/designs/${id}`, { description: "still editable" }))).toBe(200);
    expect(await statusOf(call("POST", "/designs/preview", {}))).toBe(400);
    expect(await statusOf(api(stack, tenant.appKey)("/file/designs"))).toBe(200);

    // The next window admits again.
    await clock.enterFreshWindow(1);
    expect(await statusOf(call("POST", `/designs/${id}/versions`, smallForm("Next window")))).toBe(201);
  });

  it("the studio's design writes count in the same window as the API's: the script gets the API's 429 body, a form the refusal page, both with Retry-After", async () => {
    const demo = stack.localJson.workspaces[0]!;
    const call = await designCaller(demo.id);
    const designId = demo.designs[0]!.id;
    const origin = new URL(stack.localJson.siteUrl).origin;
    const admin = stack.localJson.users.find((u) => u.workspaceIds.includes(demo.id))!;
    const cookie = await loginCookie(origin, admin);
    const editor = await (await fetch(`${origin}/designs/${designId}`, { headers: { cookie } })).text();
    const csrf = /data-csrf="([^"]+)"/.exec(editor)?.[1] ?? "";
    expect(csrf).not.toBe("");
    const studio = (method: string, path: string, init: { json?: unknown; form?: Record<string, string> } = {}) =>
      fetch(`${origin}${path}`, {
        method,
        redirect: "manual",
        headers: {
          cookie,
          "x-csrf-token": csrf,
          ...(init.json !== undefined && { "content-type": "application/json" }),
          ...(init.form && { "content-type": "application/x-www-form-urlencoded" }),
        },
        ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
        ...(init.form && { body: new URLSearchParams(init.form).toString() }),
      });

    await clock.enterFreshWindow(1);
    // 30 through the studio (draft reads: 404, the design has no draft), 30 through the API.
    const studioReads = await burst(30, 8, () => statusOf(studio("GET", `/designs/${designId}/draft`)));
    const apiReads = await burst(30, 8, () => statusOf(call("GET", `/designs/${UNKNOWN_DESIGN}/draft`)));
    expect(tally([...studioReads, ...apiReads])).toEqual({ 404: 60 });

    const edits = { template: "<p>over</p>", style: "", parameters: [] };
    const save = await studio("PUT", `/designs/${designId}/draft`, { json: edits });
    expect(save.headers.get("content-type")).toMatch(/^application\/json/);
    await expectRateLimited(save);

    const publish = await studio("POST", `/designs/${designId}/publish`, {
      form: { csrf, note: "over", expectedLatestVersion: "1" },
    });
    expect(publish.status).toBe(429);
    expect(publish.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await publish.text()).toContain("rate_limited");

    const create = await studio("POST", "/designs", { form: { csrf, workspace: demo.id, kind: "blank", label: "x" } });
    expect(create.status).toBe(429);
    expect(create.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    await create.arrayBuffer();

    await expectRateLimited(await call("POST", "/designs", smallForm("Over the limit")));
  });
});

describe("a caller over its limit is refused before any work on a route that checks a bundle", () => {
  it("answers 429 at once, with no draft read, bundle checked, thumbnail rendered or object stored", async () => {
    const tenant: Tenant = await createTenant(stack, "Rate before work");
    const call = await designCaller(tenant.workspaceId);
    // A design with a draft that takes long to check if it is ever checked (40,000 missing assets).
    const created = await call("POST", "/designs", smallForm("With a heavy draft"));
    const { id } = (await created.json()) as { id: string };
    expect(await statusOf(call("PUT", `/designs/${id}/draft`, heavyForm("With a heavy draft")))).toBe(200);

    await clock.enterFreshWindow(1);
    expect(tally(await burst(60, 8, () => statusOf(call("GET", `/designs/${UNKNOWN_DESIGN}/draft`))))).toEqual({
      404: 60,
    });
    expect(tally(await burst(60, 8, () => statusOf(call("POST", "/designs/preview", {}))))).toEqual({ 400: 60 });

    // Every read of a draft and every stored bundle, draft or thumbnail is counted from here on.
    const watch = { action: "delay" as const, delayMs: 0, times: 1_000 };
    await armFaults(stack, [
      { service: "s3", command: "GetObjectCommand", detail: "/drafts/", ...watch },
      { service: "s3", command: "PutObjectCommand", detail: "designs/", ...watch },
    ]);
    try {
      const refused = [
        () => call("POST", "/designs/preview", { designId: id, draft: true }),
        () => call("POST", "/designs/preview", { bundle: heavyForm("Inline") }),
        () => call("GET", `/designs/${id}/draft`),
        () => call("PUT", `/designs/${id}/draft`, heavyForm("Again")),
        () => call("POST", `/designs/${id}/versions`, { from: "draft" }),
        () => call("POST", `/designs/${id}/versions`, heavyForm("Publish")),
        () => call("POST", "/designs", heavyForm("Create")),
      ];
      for (const send of refused) {
        const { res, ms } = await timed(send);
        await expectRateLimited(res);
        // Checking any of these bundles took 23 s before; refused before the check, it is at once.
        expect(ms).toBeLessThan(3_000);
      }
      expect(await faultHits(stack)).toEqual([0, 0]);

      // The watch itself works: admitted in the next window, the same draft read is seen.
      await clock.enterFreshWindow(1);
      expect(await statusOf(call("GET", `/designs/${id}/draft`))).toBe(200);
      expect(await faultHits(stack)).toEqual([1, 0]);
    } finally {
      await armFaults(stack, []);
    }
  });
});
