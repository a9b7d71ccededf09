import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimIdempotencyKey } from "#shared/limits/idempotency.ts";
import { admitPages, claimPages, planOf, settlePages, usageReport } from "#shared/limits/page-quota.ts";
import { checkRateLimit } from "#shared/limits/rate-limiter.ts";
import type { Plan, Workspace } from "#shared/workspaces/workspace-store.ts";
import { MemoryPageCounter, MemoryRateWindows } from "../helpers/memory-limits.ts";
import { fixedClock } from "../helpers/memory-requests.ts";
import { refusal } from "../helpers/refusal.ts";

/**
 * The page quota and rate rules (shared/limits/README.md#rate-limits) over in-memory ports (usage-table.ts
 * holds the DynamoDB ones).
 */

const workspace = (plan?: string): Workspace => ({
  id: "ws_a",
  name: "A",
  ...(plan && { plan: plan as Plan }),
  appKeyRotatedAt: "",
  createdAt: "",
});
const clock = fixedClock("2026-03-31T23:59:30Z");

beforeEach(() => {
  vi.stubEnv(
    "PLATEN_PLAN_PAGES",
    JSON.stringify({ free: { monthlyPages: 10, stops: true }, standard: { monthlyPages: 5, stops: false } }),
  );
  vi.stubEnv("PLATEN_RATE_LIMITS", JSON.stringify({ sync: 3 }));
});
afterEach(() => vi.unstubAllEnvs());

describe("plans and page admission (see shared/errors/catalogue.ts, shared/limits/README.md#service-limits)", () => {
  it("refuses a workspace without a plan (403) and one whose plan is not active (404)", () => {
    expect(() => planOf(workspace())).toThrow(expect.objectContaining({ code: "PLAN_NOT_FOUND", status: 403 }));
    expect(() => planOf(workspace("gold"))).toThrow(
      expect.objectContaining({ code: "ACTIVE_PLAN_NOT_FOUND", status: 404 }),
    );
    expect(planOf(workspace("free"))).toEqual({ monthlyPages: 10, stops: true });
  });

  it("reserves one page per file in the clock's UTC month, with the stopping plan's limit", async () => {
    const pages = new MemoryPageCounter();
    expect(await admitPages(workspace("free"), 4, { clock, pages })).toEqual({
      workspaceId: "ws_a",
      month: "2026-03",
      reserved: 4,
      limit: 10,
    });
    expect(await admitPages(workspace("standard"), 2, { clock, pages })).toEqual({
      workspaceId: "ws_a",
      month: "2026-03",
      reserved: 2,
    });
    expect(await pages.used("ws_a", "2026-03")).toBe(6);
  });

  it("refuses what would pass a stopping plan's limit with PLAN_PAGE_LIMIT_EXCEEDED, adding nothing", async () => {
    const pages = new MemoryPageCounter();
    await admitPages(workspace("free"), 8, { clock, pages });
    const err = await refusal(admitPages(workspace("free"), 3, { clock, pages }));
    expect([err.code, err.status, err.vars]).toEqual(["PLAN_PAGE_LIMIT_EXCEEDED", 403, { used: 8, limit: 10 }]);
    expect(await admitPages(workspace("free"), 2, { clock, pages })).toMatchObject({ reserved: 2 });
    expect(
      (await refusal(admitPages(workspace("free"), 11, { clock: fixedClock("2026-04-01T00:00:00Z"), pages }))).vars,
    ).toEqual({ used: 0, limit: 10 });
    expect([await pages.used("ws_a", "2026-03"), await pages.used("ws_a", "2026-04")]).toEqual([10, 0]);
  });

  it("never lets concurrent claims pass the limit", async () => {
    const pages = new MemoryPageCounter();
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, () => claimPages(pages, "ws_a", "2026-03", 1, 10)),
    );
    expect([results.filter((r) => r.status === "fulfilled").length, await pages.used("ws_a", "2026-03")]).toEqual([
      10, 10,
    ]);
  });

  it("reports the used pages without the caller's own, and returns pages on a negative claim or a settlement", async () => {
    const pages = new MemoryPageCounter();
    await claimPages(pages, "ws_a", "2026-03", 6, 10);
    expect((await refusal(claimPages(pages, "ws_a", "2026-03", 5, 10, 2))).vars).toEqual({ used: 4, limit: 10 });
    await claimPages(pages, "ws_a", "2026-03", -2, 10);
    await settlePages(pages, "ws_a", "2026-03", -1);
    await settlePages(pages, "ws_a", "2026-03", 0);
    expect(await pages.used("ws_a", "2026-03")).toBe(3);
  });

  it("bills overage only on plans that do not stop", async () => {
    const pages = new MemoryPageCounter();
    await claimPages(pages, "ws_a", "2026-03", 7, undefined);
    expect(await usageReport(pages, workspace("standard"), "2026-03")).toEqual({
      workspaceId: "ws_a",
      month: "2026-03",
      plan: "standard",
      pagesUsed: 7,
      limit: 5,
      stops: false,
      overage: 2,
    });
    expect(await usageReport(pages, workspace("free"), "2026-03")).toMatchObject({
      limit: 10,
      stops: true,
      overage: 0,
    });
    expect(await usageReport(pages, workspace(), "2026-03")).toMatchObject({
      plan: null,
      limit: null,
      stops: null,
      overage: 0,
    });
  });
});

describe("rate limits (see shared/limits/README.md#rate-limits)", () => {
  it("admits the class's limit per minute, then 429 with the seconds until the window ends", async () => {
    const windows = new MemoryRateWindows();
    for (let i = 0; i < 3; i++) await checkRateLimit("ws_a", "sync", { clock, windows });
    const err = await refusal(checkRateLimit("ws_a", "sync", { clock, windows }));
    expect([err.code, err.status, err.retryAfter]).toEqual(["RATE_LIMITED", 429, 30]);
    expect([...windows.windows.values()]).toEqual([
      { count: 3, expiresAt: Date.parse("2026-03-31T23:59:00Z") / 1000 + 120 },
    ]);
  });

  it("counts each workspace and class on its own, and starts afresh in the next window", async () => {
    const windows = new MemoryRateWindows();
    for (let i = 0; i < 3; i++) await checkRateLimit("ws_a", "sync", { clock, windows });
    await checkRateLimit("ws_b", "sync", { clock, windows });
    await checkRateLimit("ws_a", "status", { clock, windows });
    await checkRateLimit("ws_a", "sync", { clock: fixedClock("2026-04-01T00:00:00Z"), windows });
    const late = await refusal(
      checkRateLimit("ws_a", "sync", { clock: fixedClock("2026-03-31T23:59:59.5Z"), windows }),
    );
    expect(late.retryAfter).toBe(1);
  });

  it("lets exactly the limit through a burst", async () => {
    const windows = new MemoryRateWindows();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => checkRateLimit("ws_a", "sync", { clock, windows })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
  });
});

describe("Idempotency-Key (see shared/limits/README.md#what-holds)", () => {
  it.each([[""], ["   "], ["k".repeat(256)]])("refuses %j before any lookup, in English and Japanese", async (key) => {
    const err = await refusal(claimIdempotencyKey("W", key, "{}", fixedClock("2026-01-01T00:00:00Z")));
    expect(err.code).toBe("VALIDATION_FAILED");
    expect(err.details).toEqual([
      {
        field: "Idempotency-Key",
        code: "VALIDATION_FAILED",
        text: { en: "must be 1–255 characters", ja: "1〜255 文字である必要があります" },
      },
    ]);
  });
});
