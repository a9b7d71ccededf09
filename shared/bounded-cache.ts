/**
 * The one eviction rule of every in-memory cache a warm function keeps (bundles, versions, compiled
 * templates, barcodes, admission's remembered keys…): least recently used first, until the entries
 * fit both bounds, the bytes they hold together and, when given, their number. Bounded by bytes, not
 * by count: a count of entries says nothing about memory when one entry is a 10 MB bundle and the
 * next a 2 KB one (200 bundles of 10 MB were about 2 GB, in a 512 MB function).
 *
 * The bytes are the caller's estimate of what an entry keeps alive (`textBytes` for strings, the
 * buffers' own lengths); an entry larger than the whole budget is not kept at all.
 */
export interface BoundedCacheOptions {
  /** Bytes the entries may hold together. */
  maxBytes: number;
  /** Entries at most, whatever their bytes (small entries: remembered keys, formatters). */
  maxEntries?: number;
}

interface Entry<V> {
  value: V;
  bytes: number;
}

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private held = 0;
  readonly maxBytes: number;
  readonly maxEntries: number;

  constructor({ maxBytes, maxEntries = Number.POSITIVE_INFINITY }: BoundedCacheOptions) {
    if (!(maxBytes > 0) || !(maxEntries > 0)) throw new Error("a bounded cache needs maxBytes and maxEntries above 0");
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
  }

  /** The value, now the most recently used; undefined when not cached. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // A Map iterates in insertion order: moved to the end, the entry is the newest.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /**
   * Keeps `value` as the most recently used entry, then evicts the least recently used ones until
   * both bounds hold. Answers whether it was kept: a value over the whole budget is not (and replaces
   * nothing: an older value of the key is dropped).
   */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    const size = Math.max(0, bytes);
    if (size > this.maxBytes) return false;
    this.entries.set(key, { value, bytes: size });
    this.held += size;
    this.evict();
    return true;
  }

  /**
   * A new size for the entry of `key`, if it still holds `value` (a read whose result arrived after
   * it was cached as a pending promise). Evicts as `set` does, the entry itself included when it no
   * longer fits.
   */
  resize(key: K, value: V, bytes: number): void {
    const entry = this.entries.get(key);
    if (!entry || entry.value !== value) return;
    const size = Math.max(0, bytes);
    if (size > this.maxBytes) {
      this.delete(key);
      return;
    }
    this.held += size - entry.bytes;
    entry.bytes = size;
    this.evict();
  }

  /** Drops the entry of `key`; with `value`, only while it still holds that value. */
  delete(key: K, value?: V): boolean {
    const entry = this.entries.get(key);
    if (!entry || (value !== undefined && entry.value !== value)) return false;
    this.entries.delete(key);
    this.held -= entry.bytes;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The bytes the entries hold together, as estimated when they were set. */
  get bytes(): number {
    return this.held;
  }

  private evict(): void {
    while (this.held > this.maxBytes || this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) return;
      this.delete(oldest.value);
    }
  }
}

/**
 * A read shared through `cache`: concurrent callers of one key get the same promise; it is kept at
 * `pendingBytes` until it settles, then at `sizeOf` its value. A failed read, or a value `keep`
 * refuses (a miss), is dropped so the next caller reads again.
 */
export function cachedRead<K, V>(
  cache: BoundedCache<K, Promise<V>>,
  key: K,
  read: () => Promise<V>,
  {
    sizeOf,
    keep = () => true,
    pendingBytes = 1,
  }: { sizeOf: (value: V) => number; keep?: (value: V) => boolean; pendingBytes?: number },
): Promise<V> {
  const hit = cache.get(key);
  if (hit) return hit;
  const pending = read();
  cache.set(key, pending, pendingBytes);
  pending.then(
    (value) => {
      if (keep(value)) cache.resize(key, pending, sizeOf(value));
      else cache.delete(key, pending);
    },
    () => cache.delete(key, pending),
  );
  return pending;
}

/** Bytes a string may hold in V8: two per UTF-16 code unit (one-byte strings take less). */
export const textBytes = (text: string): number => text.length * 2;

/** Bytes of a plain value (parsed JSON, a record read from the database), as its JSON text would take. */
export function jsonBytes(value: unknown): number {
  try {
    return textBytes(JSON.stringify(value) ?? "");
  } catch {
    return Number.POSITIVE_INFINITY; // not JSON (a cycle, a BigInt): never cached
  }
}

/** One mebibyte, for the caches' budgets. */
export const MiB = 1024 * 1024;
