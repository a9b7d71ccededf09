import { describe, expect, it } from "vitest";
import {
  PAGE_SHARDS,
  pageItemKey,
  pageItemKeys,
  pageShardOf,
  requestItemsKey,
  requestOfItem,
} from "#shared/limits/page-shards.ts";
import { newId } from "#shared/ids.ts";

/**
 * The write pattern of a month's page count (shared/limits/page-shards.ts, infra/README.md#capacity-model):
 * one hot item per workspace breaks DynamoDB's 1,000 writes a second per item at ~25× the reference
 * load (2,000 files a minute, ~1.2 page writes a file). Plans that never stop write each request's
 * pages to its own item (requests accepted before that went to one of PAGE_SHARDS shards by request).
 */
describe("where a month's pages are counted", () => {
  it("a stopping plan (no spread) writes the month's one main item; a request's writes all land on its own item", () => {
    expect(pageItemKey("W", "2026-11")).toEqual({ pk: "PAGES#W", sk: "2026-11" });
    const requestId = newId();
    const keys = new Set(
      Array.from({ length: 50 }, () =>
        JSON.stringify(pageItemKey("W", "2026-11", { requestId, layout: "request" as const })),
      ),
    );
    expect([...keys]).toEqual([JSON.stringify({ pk: requestItemsKey("W", "2026-11"), sk: `REQ#${requestId}` })]);
    expect(requestOfItem(`REQ#${requestId}`)).toBe(requestId);
    expect(requestOfItem("2026-11")).toBeUndefined();
  });

  it("request items of one month share one partition (one Query reads the month), apart from every other month and workspace", () => {
    const a = pageItemKey("W", "2026-11", { requestId: newId(), layout: "request" });
    const b = pageItemKey("W", "2026-11", { requestId: newId(), layout: "request" });
    expect(a.pk).toBe(b.pk);
    expect(a.sk).not.toBe(b.sk);
    expect(pageItemKey("W", "2026-12", { requestId: newId(), layout: "request" }).pk).not.toBe(a.pk);
    expect(pageItemKey("V", "2026-11", { requestId: newId(), layout: "request" }).pk).not.toBe(a.pk);
    // Never one of the items read by key (main and shards): nothing is counted twice.
    expect(pageItemKeys("W", "2026-11").map((k) => k.pk)).not.toContain(a.pk);
  });

  it("requests of the earlier layout keep their shard: the count is read from the main item and every shard", () => {
    const keys = pageItemKeys("W", "2026-11");
    expect(keys).toHaveLength(PAGE_SHARDS + 1);
    for (let i = 0; i < 1000; i++) {
      const key = pageItemKey("W", "2026-11", { requestId: newId(), layout: "shard" });
      expect(keys).toContainEqual(key);
    }
  });

  it("the earlier shards: 100× the reference load of one workspace keeps every shard under 1,000 writes a second", () => {
    // 2,000 one-page files a minute × 100, in requests of 100 files: ~1.2 page writes a file.
    const filesPerSecond = (2000 * 100) / 60;
    const unsharded = filesPerSecond * 1.2;
    expect(unsharded).toBeGreaterThan(1000); // one item would throttle
    // The earlier shards: spread evenly enough that no shard takes much more than its share.
    const perItem = new Array<number>(PAGE_SHARDS).fill(0);
    for (let i = 0; i < (filesPerSecond / 100) * 60; i++) perItem[pageShardOf(newId())]! += (100 * 1.2) / 60;
    expect(Math.max(...perItem)).toBeLessThan((unsharded / PAGE_SHARDS) * 1.6);
  });
});
