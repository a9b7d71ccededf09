import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { BoundedCache, cachedRead, jsonBytes, MiB, textBytes } from "#shared/bounded-cache.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import type { DesignVersion } from "#shared/designs/design-store.ts";

/**
 * The one eviction rule of the in-memory caches: least recently used first, bounded
 * by the bytes the entries hold (and, where given, their number), so 200 bundles of 10 MB can no
 * longer fill a 512 MB function.
 */

const getBundle = vi.hoisted(() => vi.fn<(key: string) => Promise<DesignBundle>>());
vi.mock("#shared/designs/design-store.ts", async (original) => ({
  ...(await original<typeof import("#shared/designs/design-store.ts")>()),
  getBundle,
}));

const { bundleBytes, loadBundle } = await import("#shared/designs/find-design-version.ts");
// The files after this one in its worker import the real store (helpers/file-isolation.ts).
afterAll(() => vi.doUnmock("#shared/designs/design-store.ts"));

describe("BoundedCache: least recently used out first, by bytes", () => {
  it("evicts the least recently used entries until the bytes fit; a read makes an entry the newest", () => {
    const cache = new BoundedCache<string, string>({ maxBytes: 100 });
    cache.set("a", "A", 40);
    cache.set("b", "B", 40);
    expect(cache.get("a")).toBe("A"); // a is now newer than b
    cache.set("c", "C", 40); // 120 > 100: the oldest, b, goes
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).toEqual([true, false, true]);
    expect([cache.size, cache.bytes]).toEqual([2, 80]);
    cache.set("d", "D", 100); // alone it fits: everything else goes
    expect([cache.has("a"), cache.has("c"), cache.get("d")]).toEqual([false, false, "D"]);
    expect(cache.bytes).toBe(100);
  });

  it("never keeps an entry over the whole budget, and setting one drops the key's older value", () => {
    const cache = new BoundedCache<string, string>({ maxBytes: 100 });
    cache.set("a", "small", 10);
    cache.set("keep", "K", 10);
    expect(cache.set("a", "huge", 101)).toBe(false);
    expect(cache.get("a")).toBeUndefined();
    expect([cache.get("keep"), cache.bytes]).toEqual(["K", 10]);
  });

  it("bounds the number of entries too, when asked", () => {
    const cache = new BoundedCache<number, number>({ maxBytes: MiB, maxEntries: 3 });
    for (let i = 0; i < 10; i++) cache.set(i, i, 1);
    expect([cache.size, cache.bytes]).toEqual([3, 3]);
    expect([7, 8, 9].map((i) => cache.get(i))).toEqual([7, 8, 9]);
  });

  it("resizes an entry only while it holds the same value; delete with a value is as careful", () => {
    const cache = new BoundedCache<string, object>({ maxBytes: 100 });
    const first = {};
    const second = {};
    cache.set("k", first, 1);
    cache.set("k", second, 1);
    cache.resize("k", first, 90); // a late answer for a value no longer there: nothing changes
    expect(cache.bytes).toBe(1);
    expect(cache.delete("k", first)).toBe(false);
    cache.resize("k", second, 60);
    expect(cache.bytes).toBe(60);
    cache.resize("k", second, 200); // now over the budget: dropped
    expect([cache.has("k"), cache.bytes]).toEqual([false, 0]);
  });

  it("refuses a budget that is not above zero", () => {
    expect(() => new BoundedCache({ maxBytes: 0 })).toThrow();
    expect(() => new BoundedCache({ maxBytes: 1, maxEntries: 0 })).toThrow();
  });
});

describe("cachedRead: one shared read per key, sized when it arrives", () => {
  it("shares a pending read, keeps the value at its size, drops failures and misses", async () => {
    const cache = new BoundedCache<string, Promise<string | undefined>>({ maxBytes: 1_000 });
    const read = vi.fn(async (value: string | undefined) => value);
    const opts = {
      sizeOf: (v: string | undefined) => textBytes(v ?? ""),
      keep: (v: string | undefined) => v !== undefined,
    };

    const one = cachedRead(cache, "a", () => read("hello"), opts);
    const two = cachedRead(cache, "a", () => read("other"), opts);
    expect(two).toBe(one);
    expect(cache.bytes).toBe(1); // pending
    await one;
    expect(cache.bytes).toBe(10);
    expect(read).toHaveBeenCalledTimes(1);

    await cachedRead(cache, "miss", () => read(undefined), opts);
    expect(cache.has("miss")).toBe(false);

    const failed = cachedRead(cache, "boom", () => Promise.reject(new Error("read failed")), opts);
    await expect(failed).rejects.toThrow("read failed");
    expect(cache.has("boom")).toBe(false);
    expect(await cachedRead(cache, "boom", () => read("again"), opts)).toBe("again");
  });

  it("does not keep a value larger than the budget (read every time)", async () => {
    const cache = new BoundedCache<string, Promise<string>>({ maxBytes: 10 });
    const read = vi.fn(async () => "far too long a value");
    await cachedRead(cache, "k", read, { sizeOf: textBytes });
    await cachedRead(cache, "k", read, { sizeOf: textBytes });
    expect(read).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });

  it("sizes plain values as their JSON text; what JSON cannot write is never kept", () => {
    expect(jsonBytes({ a: "bc" })).toBe(textBytes('{"a":"bc"}'));
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonBytes(cycle)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("the bundle cache holds bundles by bytes (64 MiB), not 200 of them", () => {
  const TEN_MB = 10 * 1024 * 1024;
  const bundleOf = (key: string): DesignBundle => ({
    manifest: { label: key } as DesignBundle["manifest"],
    template: "<p>x</p>",
    css: "",
    assets: { "assets/big.png": { contentType: "image/png", body: Buffer.alloc(TEN_MB) } },
  });
  const versionOf = (i: number) => ({ bundleKey: `bundles/${i}` }) as DesignVersion;

  beforeEach(() => {
    getBundle.mockReset();
    getBundle.mockImplementation(async (key) => bundleOf(key));
  });

  it("counts a bundle's assets, texts and manifest", () => {
    const bundle = bundleOf("k");
    expect(bundleBytes(bundle)).toBe(
      TEN_MB + textBytes("assets/big.png") + textBytes("<p>x</p>") + jsonBytes(bundle.manifest),
    );
  });

  it("keeps only the 6 most recent 10 MB bundles after 200 were loaded", async () => {
    for (let i = 0; i < 200; i++) await loadBundle(versionOf(i));
    expect(getBundle).toHaveBeenCalledTimes(200);
    // The newest six are served from memory…
    for (let i = 199; i >= 194; i--) await loadBundle(versionOf(i));
    expect(getBundle).toHaveBeenCalledTimes(200);
    // …the seventh newest was evicted (6 × 10 MB fit in 64 MiB, 7 do not), and the first long ago.
    await loadBundle(versionOf(193));
    await loadBundle(versionOf(0));
    expect(getBundle).toHaveBeenCalledTimes(202);
  });
});
