import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { inFlightCap, latestAverage, liveLeases } from "#shared/generation/scheduling/fair-share.ts";
import {
  LEASE_SHARDS,
  leaseItemKey,
  leaseShardOf,
  shardCap,
  shardsInUse,
} from "#shared/generation/scheduling/lease-shards.ts";
import { giveBackLease, takeLease } from "#shared/generation/scheduling/render-leases.ts";
import { MemoryLeaseStore, LEASE_TEST_CONFIG } from "../helpers/memory-leases.ts";

/**
 * The write pattern of the render leases (shared/generation/scheduling/lease-shards.ts, infra/README.md#capacity-model):
 * one item per workspace takes two writes per render and breaks DynamoDB's 1,000 writes a second per item
 * at ~15× the reference load (2,000 files a minute); spread over LEASE_SHARDS items with the cap split
 * between them, 100× stays under it on every item, and the workspace still holds at most its cap.
 */

const T0 = Date.UTC(2026, 10, 25, 9, 0, 0);
const config = LEASE_TEST_CONFIG;
const fast = { tookMs: 100, timedOut: false };

/** Live leases per item of the workspace. */
const heldPerItem = (store: MemoryLeaseStore, ws: string, nowMs: number) =>
  store.sharesOf(ws).map((item) => Object.keys(liveLeases(item.leases, nowMs)).length);

describe("the cap split over the lease items", () => {
  it("parts sum to the cap, each part grows with the cap, and a cap below the items uses one item per lease", () => {
    for (let cap = 1; cap <= 200; cap++) {
      const parts = Array.from({ length: LEASE_SHARDS }, (_, k) => shardCap(k, cap));
      expect(
        parts.reduce((a, b) => a + b, 0),
        `cap ${cap}`,
      ).toBe(cap);
      for (const [k, part] of parts.entries())
        expect(part, `cap ${cap} item ${k}`).toBeGreaterThanOrEqual(shardCap(k, cap - 1));
      expect(Math.max(...parts) - Math.min(...parts.slice(0, shardsInUse(cap)))).toBeLessThanOrEqual(1);
    }
    expect(Array.from({ length: LEASE_SHARDS }, (_, k) => shardCap(k, 3))).toEqual([1, 1, 1, 0, 0, 0, 0, 0]);
    expect(leaseItemKey("W", 0)).toEqual({ pk: "RENDERING#W", sk: "LEASES" });
    expect(leaseItemKey("W", 5)).toEqual({ pk: "RENDERING#W#5", sk: "LEASES" });
  });

  it("100× the reference load of one workspace keeps every lease item under 1,000 writes a second", () => {
    // 2,000 one-page files a minute × 100, two lease writes per render (taken, given back).
    const rendersPerSecond = (2000 * 100) / 60;
    const perItem = new Array<number>(LEASE_SHARDS).fill(0);
    for (let i = 0; i < rendersPerSecond; i++) perItem[leaseShardOf(randomUUID())]! += 2;
    expect(rendersPerSecond * 2).toBeGreaterThan(1000); // one item would throttle
    expect(Math.max(...perItem)).toBeLessThan(1000);
  });
});

describe("the leases of one workspace over its items (in-memory store)", () => {
  it("M renders in waves at the cap: spread over every item, none above its part, the workspace never above its cap", async () => {
    const store = new MemoryLeaseStore().seed("A", { leases: {}, avgMs: 100 }); // cap 40: 5 per item
    const cap = inFlightCap({ avgMs: 100 }, config);
    expect(cap).toBe(40);
    const M = 2000;
    let taken = 0;
    for (let wave = 0; taken < M; wave++) {
      const now = T0 + wave * 1000;
      // More renders than the cap arrive at once (a backlog): at most the cap is admitted, then the
      // workspace fills up to exactly its cap as renders keep coming.
      const tokens = Array.from({ length: 50 }, () => randomUUID());
      const shards = await Promise.all(tokens.map((t) => takeLease(store, "A", t, now + 60_000, now, config)));
      const admitted = shards.flatMap((shard, i) => (shard === undefined ? [] : [{ shard, token: tokens[i]! }]));
      expect(admitted.length).toBeLessThanOrEqual(cap);
      for (let more = 0; more < 20; more++) {
        const token = randomUUID();
        const shard = await takeLease(store, "A", token, now + 60_000, now, config);
        if (shard !== undefined) admitted.push({ shard, token });
      }
      expect(admitted).toHaveLength(cap);
      for (const [k, n] of heldPerItem(store, "A", now).entries()) expect(n, `item ${k}`).toBe(shardCap(k, cap));
      await Promise.all(admitted.map((l) => giveBackLease(store, "A", l.shard, l.token, now + 100, fast, config)));
      taken += admitted.length;
    }
    // Two writes per render (taken, given back), on its item: each item takes its part of them.
    const writes = Array.from({ length: LEASE_SHARDS }, (_, k) => store.writesByItem.get(`A#${k}`) ?? 0);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(2 * M);
    for (const w of writes) expect(w).toBe((2 * M) / LEASE_SHARDS);
  });

  it("a cap of 1 is never starved, whichever item a token chooses; a cap of N below the items reaches N", async () => {
    const slow = { ...config, minInFlight: 1 };
    const store = new MemoryLeaseStore().seed("A", { leases: {}, avgMs: 60_000 }); // cap 1
    for (let i = 0; i < 4 * LEASE_SHARDS; i++) {
      const token = `one-${i}`;
      const shard = await takeLease(store, "A", token, T0 + 60_000, T0, slow);
      expect(shard, token).toBe(0); // the one item in use
      expect(await takeLease(store, "A", `other-${i}`, T0 + 60_000, T0, slow)).toBeUndefined();
      await giveBackLease(store, "A", shard!, token, T0, { timedOut: false }, slow);
    }
    const three = new MemoryLeaseStore().seed("B", { leases: {}, avgMs: 1333 }); // cap 3
    for (let round = 0; round < 20; round++) {
      const tokens = Array.from({ length: 6 }, () => randomUUID());
      const shards = await Promise.all(tokens.map((t) => takeLease(three, "B", t, T0 + 60_000, T0, config)));
      expect(shards.filter((s) => s !== undefined).sort()).toEqual([0, 1, 2]);
      await Promise.all(
        shards.map((s, i) =>
          s === undefined ? undefined : giveBackLease(three, "B", s, tokens[i]!, T0, { timedOut: false }, config),
        ),
      );
    }
  });

  it("the average follows the workspace's documents: slower renders shrink the cap on every item they reach", async () => {
    const store = new MemoryLeaseStore().seed("A", { leases: {}, avgMs: 100 }); // cap 40
    for (let i = 0; i < 400; i++) {
      const token = randomUUID();
      const now = T0 + i * 10;
      const shard = await takeLease(store, "A", token, now + 60_000, now, config);
      await giveBackLease(store, "A", shard!, token, now, { tookMs: 2000, timedOut: false }, config);
    }
    // The items kept in use learnt the 2 s; every other one stopped admitting when its own average
    // put it out of use. So each item's own part is what it would be at the newest average, cap 2.
    expect(inFlightCap(latestAverage(store.sharesOf("A")), config)).toBe(2);
    for (const [k, item] of store.sharesOf("A").entries())
      expect(shardCap(k, inFlightCap(item, config)), `item ${k}`).toBe(shardCap(k, 2));
    const now = T0 + 10_000;
    const shards = await Promise.all(
      Array.from({ length: 20 }, () => takeLease(store, "A", randomUUID(), now + 60_000, now, config)),
    );
    expect(shards.filter((s) => s !== undefined)).toHaveLength(2);
    expect(store.held("A", now)).toBe(2);
  });

  it("an item not written yet learns the workspace's average from the others before it admits", async () => {
    // Slow documents (cap 2) learnt on items 0 and 1; a token choosing an empty item is held to the same cap.
    const store = new MemoryLeaseStore();
    store.items.set("A#0", { leases: { a: T0 + 60_000 }, avgMs: 30_000, avgAt: T0 });
    store.items.set("A#1", { leases: { b: T0 + 60_000 }, avgMs: 30_000, avgAt: T0 });
    for (let i = 0; i < 20; i++)
      expect(await takeLease(store, "A", randomUUID(), T0 + 60_000, T0 + 1, config)).toBeUndefined();
    expect(store.writes).toBe(0);
  });
});
