import { describe, expect, it } from "vitest";
import type { Clock } from "#shared/clock.ts";
import { isTransientAwsError } from "#shared/aws/transient-error.ts";
import {
  DEFERRED,
  type FairRendering,
  fairRenderingFromEnv,
  renderInSlot,
  renderSlots,
} from "#shared/generation/scheduling/fair-render.ts";
import {
  admitRender,
  deferDelaySeconds,
  endLease,
  fitsInvocation,
  inFlightCap,
  type Leases,
  latestAverage,
  type RenderEnd,
  type RenderShare,
  readFairShareConfig,
} from "#shared/generation/scheduling/fair-share.ts";
import { giveBackLease, type LeaseStore, takeLease } from "#shared/generation/scheduling/render-leases.ts";
import { MemoryLeaseStore, LEASE_TEST_CONFIG } from "../helpers/memory-leases.ts";
import type { Outcome } from "#shared/generation/store/index.ts";
import { RenderError } from "#shared/render/renderer.ts";

/**
 * Fair rendering across workspaces: the pure rules and the lease protocol, with an in-memory store
 * of the workspace's lease items (test/helpers/memory-leases.ts; the spread over items:
 * test/unit/lease-shards.test.ts).
 */

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);
const config = LEASE_TEST_CONFIG;
const share = (leases: Leases, avgMs?: number): RenderShare => ({ leases, ...(avgMs === undefined ? {} : { avgMs }) });
const tokens = (n: number, until: number): Leases =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, until]));
const fast: RenderEnd = { tookMs: 100, timedOut: false };
/** The rule on a workspace whose whole cap is on one item. */
const admit = (s: RenderShare, token: string, untilMs: number, nowMs: number) =>
  admitRender(s, token, untilMs, nowMs, inFlightCap(s, config));

describe("the cap decision", () => {
  it("caps the renders in flight by expected rendering time: fast documents barely, slow ones to the minimum", () => {
    expect(inFlightCap({}, config)).toBe(20); // 4 s / 200 ms assumed
    expect(inFlightCap({ avgMs: 100 }, config)).toBe(40);
    expect(inFlightCap({ avgMs: 1000 }, config)).toBe(4);
    expect(inFlightCap({ avgMs: 30_000 }, config)).toBe(2);
  });

  it("admits while the workspace holds fewer live leases than its cap; expired leases do not count and are dropped", () => {
    expect(admit(share({}, 2000), "a", T0 + 1000, T0)).toEqual(share({ a: T0 + 1000 }, 2000));
    expect(admit(share({ a: T0 + 1000, b: T0 + 2000 }, 2000), "c", T0 + 3000, T0)).toBeUndefined();
    // a crashed worker's lease runs out: its slot is free again once it expired
    expect(admit(share({ crashed: T0 - 1, b: T0 + 2000 }, 2000), "c", T0 + 3000, T0)).toEqual(
      share({ b: T0 + 2000, c: T0 + 3000 }, 2000),
    );
    expect(admit(share(tokens(39, T0 + 1000), 100), "x", T0 + 1000, T0)).toBeDefined();
    expect(admit(share(tokens(40, T0 + 1000), 100), "x", T0 + 1000, T0)).toBeUndefined();
  });

  it("takes at most the cap when many renders of one workspace race, and other workspaces are unaffected", async () => {
    const store = new MemoryLeaseStore();
    store.seed("A", { leases: {}, avgMs: 1000 });
    const taken = await Promise.all(
      Array.from({ length: 12 }, (_, i) => takeLease(store, "A", `t${i}`, T0 + 60_000, T0, config)),
    );
    expect(taken.filter((shard) => shard !== undefined)).toHaveLength(4);
    expect(store.held("A", T0)).toBe(4);
    expect(await takeLease(store, "B", "b1", T0 + 60_000, T0, config)).toBeDefined();
  });

  it("the add is atomic: a lease another container took between the read and the write counts", async () => {
    const store = new MemoryLeaseStore();
    store.seed("A", { leases: { t1: T0 + 60_000 }, avgMs: 30_000 }); // cap: the minimum, 2
    store.beforeAdd = (ws, shard) => {
      store.beforeAdd = undefined;
      store.items.get(`${ws}#${shard}`)!.leases.other = T0 + 60_000; // another container's lease lands first
    };
    expect(await takeLease(store, "A", "mine", T0 + 60_000, T0, config)).toBeUndefined();
    expect(Object.keys(store.leasesOf("A")).sort()).toEqual(["other", "t1"]);
  });

  it("drops expired leases (a crashed worker's) before adding, so they never block the workspace", async () => {
    const store = new MemoryLeaseStore();
    // cap 2, both slots held by leases that ran out: each item is cleared of them as it is written
    store.seed("A", { leases: { crashed1: T0 - 1, crashed2: T0 - 5 }, avgMs: 30_000 });
    expect(await takeLease(store, "A", "mine", T0 + 60_000, T0, config)).toBeDefined();
    expect(await takeLease(store, "A", "mine2", T0 + 60_000, T0, config)).toBeDefined();
    expect(Object.keys(store.leasesOf("A")).sort()).toEqual(["mine", "mine2"]);
  });

  it("a refusal costs reads and no write", async () => {
    const store = new MemoryLeaseStore();
    store.seed("A", { leases: { a: T0 + 60_000, b: T0 + 60_000 }, avgMs: 30_000 });
    expect(await takeLease(store, "A", "c", T0 + 60_000, T0, config)).toBeUndefined();
    expect(store.writes).toBe(0);
  });
});

describe("time-out charging", () => {
  it("a render that ended frees its slot and joins the average; one that timed out keeps its slot for the penalty", () => {
    const leases = { a: T0 + 60_000, b: T0 + 60_000 };
    expect(endLease(share(leases), "a", T0, fast, 60_000)).toEqual(share({ b: T0 + 60_000 }, 100));
    expect(endLease(share(leases, 1000), "a", T0, fast, 60_000).avgMs).toBeCloseTo(730);
    const charged = endLease(share(leases, 1000), "a", T0 + 5000, { tookMs: 30_000, timedOut: true }, 60_000);
    expect(charged).toEqual(share({ a: T0 + 65_000, b: T0 + 60_000 }, 9700));
    // the time-out raised the average to 9.7 s: the cap falls to the minimum, 2, both still held
    expect(admit(charged, "c", T0 + 90_000, T0 + 10_000)).toBeUndefined();
    expect(admit(charged, "c", T0 + 90_000, T0 + 65_001)).toEqual(share({ c: T0 + 90_000 }, 9700));
  });

  it("repeated time-outs shrink what the workspace holds at once until their penalties run out", async () => {
    const store = new MemoryLeaseStore();
    store.seed("A", { leases: {}, avgMs: 400 }); // cap 10
    for (const t of ["x", "y"]) {
      const shard = await takeLease(store, "A", t, T0 + 60_000, T0, config);
      expect(shard).toBeDefined();
      await giveBackLease(store, "A", shard!, t, T0 + 1000, { tookMs: 30_000, timedOut: true }, config);
    }
    // two time-outs: both slots held for a minute, the average past 4 s on every item → the cap is the minimum, 2
    for (const item of store.sharesOf("A")) expect(inFlightCap(item, config)).toBe(2);
    for (const z of ["z", "z1", "z2", "z3", "z4", "z5", "z6", "z7"])
      expect(await takeLease(store, "A", z, T0 + 60_000, T0 + 2000, config), z).toBeUndefined();
    expect(await takeLease(store, "A", "z", T0 + 120_000, T0 + 61_001, config)).toBeDefined();
  });
});

describe("deferral and the invocation's time", () => {
  it("waits 1, 1, 2, 2, 4 … seconds up to the maximum, with under a second of jitter", () => {
    expect([0, 1, 2, 3, 4, 5, 8, 9, 12].map((d) => deferDelaySeconds(d, 20, () => 0))).toEqual([
      1, 1, 2, 2, 4, 4, 16, 16, 20,
    ]);
    expect(deferDelaySeconds(0, 20, () => 0.99)).toBe(1);
    expect(deferDelaySeconds(50, 900, () => 0.99)).toBe(900);
  });

  it("a render starts only with time for the longest wait, the budget and a margin", () => {
    expect(fitsInvocation(120_000, 30_000)).toBe(true);
    expect(fitsInvocation(69_999, 30_000)).toBe(false);
  });

  it("reads its knobs from the environment, the work allowance defaulting to 2 s per browser of the container", () => {
    expect(readFairShareConfig({}, 2)).toEqual({
      workMs: 4000,
      minInFlight: 2,
      initialAvgMs: 200,
      timeoutPenaltyMs: 60_000,
      maxDeferSeconds: 20,
    });
    const env = {
      PLATEN_RENDER_WORKSPACE_WORK_SECONDS: "20",
      PLATEN_RENDER_WORKSPACE_MIN: "3",
      PLATEN_RENDER_TIMEOUT_PENALTY_SECONDS: "90",
      PLATEN_RENDER_DEFER_MAX_SECONDS: "4",
    };
    expect(readFairShareConfig(env, 2)).toEqual({
      workMs: 20_000,
      minInFlight: 3,
      initialAvgMs: 200,
      timeoutPenaltyMs: 90_000,
      maxDeferSeconds: 4,
    });
    expect(readFairShareConfig({ PLATEN_RENDER_WORKSPACE_WORK_SECONDS: "" }, 1).workMs).toBe(2000);
    expect(readFairShareConfig({ PLATEN_RENDER_DEFER_MAX_SECONDS: "3600" }, 1).maxDeferSeconds).toBe(900);
  });

  it("a bad knob stops the worker with a message naming it, instead of falling back to the default", () => {
    expect(() => readFairShareConfig({ PLATEN_RENDER_WORKSPACE_WORK_SECONDS: "0" }, 1)).toThrow(
      'PLATEN_RENDER_WORKSPACE_WORK_SECONDS must be a positive integer (got "0")',
    );
    for (const name of [
      "PLATEN_RENDER_WORKSPACE_WORK_SECONDS",
      "PLATEN_RENDER_WORKSPACE_MIN",
      "PLATEN_RENDER_TIMEOUT_PENALTY_SECONDS",
      "PLATEN_RENDER_DEFER_MAX_SECONDS",
    ])
      for (const bad of ["abc", "-1", "2.5"])
        expect(() => readFairShareConfig({ [name]: bad }, 2), `${name}=${bad}`).toThrow(
          expect.objectContaining({ name: "ConfigError", message: expect.stringContaining(name) }),
        );
  });
});

describe("renderInSlot (the worker's use of a slot)", () => {
  const clock: Clock = { now: () => new Date(T0) };
  const fair = (store: LeaseStore, remainingMs = 120_000): FairRendering => ({
    store,
    config,
    budgetMs: 30_000,
    remainingMs: () => remainingMs,
    deferForTime: true,
  });
  const done: Outcome = { status: "done", pageCount: 1, bytes: 10, s3Key: "k" };

  it("renders in a slot and gives it back, its time in the average; at the cap it defers without rendering", async () => {
    const store = new MemoryLeaseStore();
    const onBrowser = async (started: () => void) => {
      started();
      return done;
    };
    expect(await renderInSlot("A", fair(store), clock, onBrowser)).toEqual(done);
    expect(store.held("A", T0)).toBe(0);
    expect(latestAverage(store.sharesOf("A")).avgMs).toBeLessThan(1000);
    // a render that never reached a browser leaves the average alone
    expect(await renderInSlot("A", fair(store), clock, async () => done)).toEqual(done);
    expect(endLease(share({}, 300), "x", T0, { timedOut: false }, 60_000)).toEqual(share({}, 300));
    store.seed("A", { leases: { busy: T0 + 60_000, busy2: T0 + 60_000 }, avgMs: 30_000 });
    let rendered = false;
    const render = async () => {
      rendered = true;
      return done;
    };
    expect(await renderInSlot("A", fair(store), clock, render)).toBe(DEFERRED);
    expect(rendered).toBe(false);
  });

  it("defers when no browser became free in time (BROWSER_BUSY) or the invocation is nearly over, and keeps a timed-out render's slot", async () => {
    const store = new MemoryLeaseStore();
    const busy = async (): Promise<Outcome> => {
      throw new RenderError("BROWSER_BUSY", "no browser");
    };
    expect(await renderInSlot("A", fair(store), clock, busy)).toBe(DEFERRED);
    expect(store.held("A", T0)).toBe(0);
    expect(await renderInSlot("A", fair(store, 30_000), clock, async () => done)).toBe(DEFERRED);
    const timedOut: Outcome = { status: "failed", errorCode: "RENDER_TIMEOUT", errorMessage: "slow" };
    expect(await renderInSlot("A", fair(store), clock, async () => timedOut)).toEqual(timedOut);
    expect(Object.values(store.leasesOf("A"))).toEqual([T0 + 60_000]);
    await expect(
      renderInSlot("A", fair(store), clock, async () => Promise.reject(new Error("S3 down"))),
    ).rejects.toThrow("S3 down");
    expect(store.held("A", T0)).toBe(1);
  });
});

describe("renderInSlot when the lease store fails", () => {
  const clock: Clock = { now: () => new Date(T0) };
  const done: Outcome = { status: "done", pageCount: 1, bytes: 10, s3Key: "k" };
  const awsError = (name: string, httpStatusCode: number) =>
    Object.assign(new Error(name), { name, $metadata: { httpStatusCode } });
  /** A store whose lease write (an item's first, or a later one) applies and then fails with `error` (a time-out after the commit). */
  const failingAfterAdd = (error: Error) => {
    const store = new MemoryLeaseStore();
    const [add, create] = [store.add.bind(store), store.create.bind(store)];
    store.add = async (...args) => {
      await add(...args);
      throw error;
    };
    store.create = async (...args) => {
      await create(...args);
      throw error;
    };
    return store;
  };
  const fair = (store: LeaseStore): FairRendering => ({
    store,
    config,
    budgetMs: 30_000,
    remainingMs: () => 120_000,
    deferForTime: true,
  });

  it("defers on a transient error (throttled, 5xx) and frees a lease the failed write may have taken", async () => {
    for (const error of [
      awsError("ProvisionedThroughputExceededException", 400),
      awsError("InternalServerError", 500),
    ]) {
      // The workspace's first lease (its item created) and a later one (added to an existing item).
      for (const store of [failingAfterAdd(error), failingAfterAdd(error).seed("A", { leases: {}, avgMs: 100 })]) {
        let rendered = false;
        const render = async () => {
          rendered = true;
          return done;
        };
        expect(await renderInSlot("A", fair(store), clock, render), error.name).toBe(DEFERRED);
        expect(rendered).toBe(false);
        expect(store.held("A", T0), error.name).toBe(0);
      }
    }
  });

  it("throws an error that repeats on every try (access denied, no table): the message's retries end in the DLQ", async () => {
    for (const error of [awsError("AccessDeniedException", 400), awsError("ResourceNotFoundException", 400)]) {
      const store = failingAfterAdd(error);
      await expect(
        renderInSlot("A", fair(store), clock, async () => done),
        error.name,
      ).rejects.toThrow(error.name);
      expect(store.held("A", T0), error.name).toBe(0);
    }
  });
});

describe("isTransientAwsError", () => {
  it("tells passing failures from repeating ones by name, status and network code", () => {
    const transient = [
      { name: "ProvisionedThroughputExceededException", $metadata: { httpStatusCode: 400 } },
      { name: "ThrottlingException", $metadata: { httpStatusCode: 400 } },
      { name: "InternalServerError", $metadata: { httpStatusCode: 500 } },
      { name: "ServiceUnavailable", $metadata: { httpStatusCode: 503 } },
      { name: "Error", code: "ECONNRESET" },
      { name: "TimeoutError" },
      { name: "Anything", $retryable: { throttling: true } },
    ];
    const repeating = [
      { name: "AccessDeniedException", $metadata: { httpStatusCode: 400 } },
      { name: "ResourceNotFoundException", $metadata: { httpStatusCode: 400 } },
      { name: "ValidationException", $metadata: { httpStatusCode: 400 } },
      new TypeError("x is not a function"),
      undefined,
    ];
    for (const e of transient) expect(isTransientAwsError(e), JSON.stringify(e)).toBe(true);
    for (const e of repeating) expect(isTransientAwsError(e), String(e?.name)).toBe(false);
  });
});

describe("fairRenderingFromEnv (per invocation)", () => {
  it("defers for time only when a fresh invocation fits a whole render: a budget too long for the time-out renders anyway", async () => {
    const env = { RENDER_TIMEOUT_MS: "30000", RENDER_BROWSERS: "1" };
    expect(fairRenderingFromEnv(() => 120_000, env).deferForTime).toBe(true);
    // 2 × 60 s + 10 s > 120 s: every file would be deferred again and again until the sweeper failed it.
    const tooLong = fairRenderingFromEnv(() => 120_000, { ...env, RENDER_TIMEOUT_MS: "60000" });
    expect(tooLong.deferForTime).toBe(false);
    const store = new MemoryLeaseStore();
    const clock: Clock = { now: () => new Date(T0) };
    const rendered: Outcome = { status: "done", pageCount: 1, bytes: 10, s3Key: "k" };
    expect(await renderInSlot("A", { ...tooLong, store }, clock, async () => rendered)).toEqual(rendered);
  });
});

describe("renderSlots (one batch's files of one workspace)", () => {
  const clock: Clock = { now: () => new Date(T0) };
  const fair = (store: LeaseStore): FairRendering => ({
    store,
    config,
    budgetMs: 30_000,
    remainingMs: () => 600_000,
    deferForTime: true,
  });
  const done: Outcome = { status: "done", pageCount: 1, bytes: 10, s3Key: "k" };
  /** Renders that record how many of them run at once and how many leases the workspace held meanwhile. */
  const observed = (store: LeaseStore & MemoryLeaseStore) => {
    const seen = { now: 0, max: 0, held: 0 };
    const render = async (onBrowser: () => void) => {
      onBrowser();
      seen.max = Math.max(seen.max, ++seen.now);
      seen.held = Math.max(seen.held, store.held("A", T0));
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.now -= 1;
      return done;
    };
    return { seen, render };
  };

  it("takes a lease per file in one write, renders the files side by side, gives the leases back in one write", async () => {
    const store = new MemoryLeaseStore().seed("A", { leases: {}, avgMs: 100 }); // cap 40
    const slots = renderSlots("A", fair(store), clock, 5);
    const { seen, render } = observed(store);
    const results = await Promise.all(Array.from({ length: 5 }, () => slots.run(render)));
    await slots.close();
    expect(results).toEqual(Array(5).fill(done));
    expect([seen.max, seen.held]).toEqual([5, 5]);
    expect(store.writes).toBe(2);
    expect(store.held("A", T0)).toBe(0);
    expect(latestAverage(store.sharesOf("A")).avgMs).toBeLessThan(100);
  });

  it("a small cap, split one lease per item: the batch takes its leases over several items, up to the cap", async () => {
    const store = new MemoryLeaseStore().seed("A", { leases: {}, avgMs: 800 }); // cap 5: one lease on each of 5 items
    const slots = renderSlots("A", fair(store), clock, 7);
    const { seen, render } = observed(store);
    const results = await Promise.all(Array.from({ length: 7 }, () => slots.run(render)));
    await slots.close();
    expect(results.filter((r) => r === done)).toHaveLength(5);
    expect(results.filter((r) => r === DEFERRED)).toHaveLength(2);
    expect([seen.max, seen.held]).toEqual([5, 5]);
    expect(store.writes).toBe(10); // one write per item each way, as one lease per file took before
    expect(store.held("A", T0)).toBe(0);
  });

  it("never holds more than the cap: with room for one, one file renders and the others go back; at the cap all do", async () => {
    const store = new MemoryLeaseStore().seed("A", { leases: { busy: T0 + 60_000 }, avgMs: 30_000 }); // cap 2
    const slots = renderSlots("A", fair(store), clock, 3);
    const { seen, render } = observed(store);
    const results = await Promise.all(Array.from({ length: 3 }, () => slots.run(render)));
    await slots.close();
    expect(results.filter((r) => r === DEFERRED)).toHaveLength(2);
    expect(results.filter((r) => r === done)).toHaveLength(1);
    expect([seen.max, seen.held]).toEqual([1, 2]);
    expect(store.held("A", T0)).toBe(1); // the other render's lease alone
    store.seed("A", { leases: { busy: T0 + 60_000, busy2: T0 + 60_000 }, avgMs: 30_000 });
    const full = renderSlots("A", fair(store), clock, 2);
    expect(await Promise.all([full.run(render), full.run(render)])).toEqual([DEFERRED, DEFERRED]);
    await full.close();
    expect(store.held("A", T0)).toBe(2);
  });

  it("a time-out keeps its own lease for the penalty, the batch's other leases are freed; no browser in time defers", async () => {
    const store = new MemoryLeaseStore().seed("A", { leases: {}, avgMs: 100 });
    const timedOut: Outcome = { status: "failed", errorCode: "RENDER_TIMEOUT", errorMessage: "slow" };
    const slots = renderSlots("A", fair(store), clock, 3);
    const busy = async (): Promise<Outcome> => Promise.reject(new RenderError("BROWSER_BUSY", "no browser"));
    const results = await Promise.all([slots.run(async () => timedOut), slots.run(async () => done), slots.run(busy)]);
    await slots.close();
    expect(results).toEqual([timedOut, done, DEFERRED]);
    expect(Object.values(store.leasesOf("A"))).toEqual([T0 + 60_000]);
    for (const item of store.sharesOf("A").filter((i) => i.avgMs !== undefined))
      expect(inFlightCap(item, config)).toBe(2); // the time-out's whole budget in the average, on every item
  });
});
