import { describe, expect, it } from "vitest";
import type { Clock } from "#shared/clock.ts";
import { DEFERRED, type FairRendering, renderInSlot } from "#shared/generation/fair-render.ts";
import { admit, deferDelaySeconds, endLease, fitsInvocation, type Leases, liveLeases, readFairShareConfig } from "#shared/generation/fair-share.ts";
import { giveBackLease, type LeaseBook, type LeaseStore, takeLease } from "#shared/generation/render-leases.ts";
import type { Outcome } from "#shared/generation/render-file.ts";
import { RenderError } from "#shared/render/renderer.ts";

/** Fair rendering across workspaces (issue 15 item 4): the pure rules and the lease protocol, with an in-memory store. */

/** An in-memory LeaseStore with the DynamoDB item's version check; `beforeWrite` lets a test race a write. */
class MemoryLeaseStore implements LeaseStore {
  books = new Map<string, LeaseBook>();
  writes = 0;
  beforeWrite?: (workspaceId: string) => void;
  async read(workspaceId: string): Promise<LeaseBook> {
    const book = this.books.get(workspaceId) ?? { leases: {}, version: 0 };
    return { leases: { ...book.leases }, version: book.version };
  }
  async write(workspaceId: string, leases: Leases, expected: number): Promise<boolean> {
    this.beforeWrite?.(workspaceId);
    if ((this.books.get(workspaceId)?.version ?? 0) !== expected) return false;
    this.writes += 1;
    this.books.set(workspaceId, { leases: { ...leases }, version: expected + 1 });
    return true;
  }
  held = (workspaceId: string, nowMs: number) => Object.keys(liveLeases(this.books.get(workspaceId)?.leases ?? {}, nowMs)).length;
}

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);

describe("the cap decision", () => {
  it("admits while the workspace holds fewer live leases than its cap; expired leases do not count and are dropped", () => {
    expect(admit({}, "a", T0 + 1000, T0, 2)).toEqual({ a: T0 + 1000 });
    expect(admit({ a: T0 + 1000 }, "b", T0 + 2000, T0, 2)).toEqual({ a: T0 + 1000, b: T0 + 2000 });
    expect(admit({ a: T0 + 1000, b: T0 + 2000 }, "c", T0 + 3000, T0, 2)).toBeUndefined();
    // a crashed worker's lease runs out: its slot is free again once it expired
    expect(admit({ crashed: T0 - 1, b: T0 + 2000 }, "c", T0 + 3000, T0, 2)).toEqual({ b: T0 + 2000, c: T0 + 3000 });
  });

  it("takes at most `cap` slots when many renders of one workspace race, and other workspaces are unaffected", async () => {
    const store = new MemoryLeaseStore();
    const taken = await Promise.all(Array.from({ length: 12 }, (_, i) => takeLease(store, "A", `t${i}`, T0 + 60_000, T0, 3)));
    expect(taken.filter(Boolean)).toHaveLength(3);
    expect(store.held("A", T0)).toBe(3);
    expect(await takeLease(store, "B", "b1", T0 + 60_000, T0, 3)).toBe(true);
  });

  it("re-reads and retries when another container wrote between its read and its write", async () => {
    const store = new MemoryLeaseStore();
    let raced = false;
    store.beforeWrite = (ws) => {
      if (raced) return;
      raced = true;
      store.books.set(ws, { leases: { other: T0 + 60_000 }, version: 1 }); // another container's lease lands first
    };
    expect(await takeLease(store, "A", "mine", T0 + 60_000, T0, 2)).toBe(true);
    expect(Object.keys(store.books.get("A")!.leases).sort()).toEqual(["mine", "other"]);
  });

  it("a refusal costs a read and no write", async () => {
    const store = new MemoryLeaseStore();
    store.books.set("A", { leases: { a: T0 + 60_000 }, version: 1 });
    expect(await takeLease(store, "A", "b", T0 + 60_000, T0, 1)).toBe(false);
    expect(store.writes).toBe(0);
  });
});

describe("time-out charging", () => {
  it("a render that ended frees its slot; one that timed out keeps it for the penalty, then it expires", () => {
    const leases = { a: T0 + 60_000, b: T0 + 60_000 };
    expect(endLease(leases, "a", T0, false, 60_000)).toEqual({ b: T0 + 60_000 });
    const charged = endLease(leases, "a", T0 + 5000, true, 60_000);
    expect(charged).toEqual({ a: T0 + 65_000, b: T0 + 60_000 });
    expect(admit(charged, "c", T0 + 90_000, T0 + 10_000, 2)).toBeUndefined();
    expect(admit(charged, "c", T0 + 90_000, T0 + 65_001, 2)).toEqual({ c: T0 + 90_000 });
  });

  it("repeated time-outs shrink what the workspace holds at once until their penalties run out", async () => {
    const store = new MemoryLeaseStore();
    for (const t of ["x", "y"]) {
      expect(await takeLease(store, "A", t, T0 + 60_000, T0, 3)).toBe(true);
      expect(await giveBackLease(store, "A", t, T0 + 1000, true, 60_000)).toBe(true);
    }
    // two time-outs: one render of three at a time for the next minute
    expect(await takeLease(store, "A", "z1", T0 + 60_000, T0 + 2000, 3)).toBe(true);
    expect(await takeLease(store, "A", "z2", T0 + 60_000, T0 + 2000, 3)).toBe(false);
    expect(await takeLease(store, "A", "z2", T0 + 120_000, T0 + 61_001, 3)).toBe(true);
  });
});

describe("deferral and the invocation's time", () => {
  it("waits 1, 2, 4 … seconds up to the maximum, with under a second of jitter", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((d) => deferDelaySeconds(d, 20, () => 0))).toEqual([1, 2, 4, 8, 16, 20, 20]);
    expect(deferDelaySeconds(0, 20, () => 0.99)).toBe(1);
    expect(deferDelaySeconds(50, 900, () => 0.99)).toBe(900);
  });

  it("a render starts only with time for the longest wait, the budget and a margin", () => {
    expect(fitsInvocation(120_000, 30_000)).toBe(true);
    expect(fitsInvocation(69_999, 30_000)).toBe(false);
  });

  it("reads its knobs from the environment, the cap defaulting to what the container renders at once", () => {
    expect(readFairShareConfig({}, 5)).toEqual({ workspaceCap: 5, timeoutPenaltyMs: 60_000, maxDeferSeconds: 30 });
    const env = { PLATEN_RENDER_WORKSPACE_CAP: "10", PLATEN_RENDER_TIMEOUT_PENALTY_SECONDS: "90", PLATEN_RENDER_DEFER_MAX_SECONDS: "4" };
    expect(readFairShareConfig(env, 5)).toEqual({ workspaceCap: 10, timeoutPenaltyMs: 90_000, maxDeferSeconds: 4 });
    expect(readFairShareConfig({ PLATEN_RENDER_WORKSPACE_CAP: "0" }, 2).workspaceCap).toBe(2);
  });
});

describe("renderInSlot (the worker's use of a slot)", () => {
  const clock: Clock = { now: () => new Date(T0) };
  const fair = (store: LeaseStore, cap: number, remainingMs = 120_000): FairRendering => ({
    store,
    config: { workspaceCap: cap, timeoutPenaltyMs: 60_000, maxDeferSeconds: 20 },
    budgetMs: 30_000,
    remainingMs: () => remainingMs,
  });
  const done: Outcome = { status: "done", pageCount: 1, bytes: 10, s3Key: "k" };

  it("renders in a slot and gives it back; at the cap it defers without rendering", async () => {
    const store = new MemoryLeaseStore();
    expect(await renderInSlot("A", fair(store, 1), clock, async () => done)).toEqual(done);
    expect(store.held("A", T0)).toBe(0);
    store.books.set("A", { leases: { busy: T0 + 60_000 }, version: 1 });
    let rendered = false;
    expect(await renderInSlot("A", fair(store, 1), clock, async () => ((rendered = true), done))).toBe(DEFERRED);
    expect(rendered).toBe(false);
  });

  it("defers when no browser became free in time (BROWSER_BUSY) or the invocation is nearly over, and keeps a timed-out render's slot", async () => {
    const store = new MemoryLeaseStore();
    const busy = async (): Promise<Outcome> => {
      throw new RenderError("BROWSER_BUSY", "no browser");
    };
    expect(await renderInSlot("A", fair(store, 2), clock, busy)).toBe(DEFERRED);
    expect(store.held("A", T0)).toBe(0);
    expect(await renderInSlot("A", fair(store, 2, 30_000), clock, async () => done)).toBe(DEFERRED);
    const timedOut: Outcome = { status: "failed", errorCode: "RENDER_TIMEOUT", errorMessage: "slow" };
    expect(await renderInSlot("A", fair(store, 2), clock, async () => timedOut)).toEqual(timedOut);
    expect(Object.values(store.books.get("A")!.leases)).toEqual([T0 + 60_000]);
    await expect(renderInSlot("A", fair(store, 2), clock, async () => Promise.reject(new Error("S3 down")))).rejects.toThrow("S3 down");
    expect(store.held("A", T0)).toBe(1);
  });
});
