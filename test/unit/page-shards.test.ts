import { describe, expect, it } from "vitest";
import { PAGE_SHARDS, pageItemKey, pageItemKeys, pageShardOf } from "#shared/limits/page-shards.ts";
import { newId } from "#shared/ids.ts";

/**
 * The write pattern of a month's page count (shared/limits/page-shards.ts, infra/README.md#capacity-model):
 * one hot item per workspace breaks DynamoDB's 1,000 writes a second per item at ~25× the reference
 * load (2,000 files a minute, ~1.2 page writes a file); spread over PAGE_SHARDS items by request,
 * 100× stays under it on every item.
 */
describe("page count shards", () => {
  it("a stopping plan (no spread) writes the month's one main item; a request's writes all land on one shard", () => {
    expect(pageItemKey("W", "2026-11")).toEqual({ pk: "PAGES#W", sk: "2026-11" });
    const request = newId();
    const keys = new Set(Array.from({ length: 50 }, () => JSON.stringify(pageItemKey("W", "2026-11", request))));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/"pk":"PAGES#W#[0-7]"/);
  });

  it("the count is read from the main item and every shard, and nothing else", () => {
    const keys = pageItemKeys("W", "2026-11");
    expect(keys).toHaveLength(PAGE_SHARDS + 1);
    for (let i = 0; i < 1000; i++) {
      const key = pageItemKey("W", "2026-11", newId());
      expect(keys).toContainEqual(key);
    }
  });

  it("100× the reference load of one workspace keeps every item under 1,000 writes a second", () => {
    // 2,000 one-page files a minute × 100, in requests of 100 files: ~1.2 page writes a file
    // (its correction, a share of its batch's marker drop and of the request's reservation).
    const filesPerSecond = (2000 * 100) / 60;
    const requestsPerSecond = filesPerSecond / 100;
    const writesPerRequest = 100 * 1.2;
    const perItem = new Array<number>(PAGE_SHARDS).fill(0);
    // One simulated minute of request ids: each request's writes go to its shard.
    for (let i = 0; i < requestsPerSecond * 60; i++) perItem[pageShardOf(newId())]! += writesPerRequest / 60;
    const unsharded = filesPerSecond * 1.2;
    expect(unsharded).toBeGreaterThan(1000); // one item would throttle
    expect(Math.max(...perItem)).toBeLessThan(1000);
    // Spread evenly enough that no shard takes much more than its share.
    expect(Math.max(...perItem)).toBeLessThan((unsharded / PAGE_SHARDS) * 1.6);
  });
});
