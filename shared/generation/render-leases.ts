import {
  admitRender,
  endLease,
  type FairShareConfig,
  inFlightCap,
  latestAverage,
  type Leases,
  liveLeases,
  type RenderEnd,
  type RenderShare,
} from "./fair-share.ts";
import { LEASE_SHARDS, leaseShardOf, shardCap, shardsInUse } from "./lease-shards.ts";

/** An average with the time it was written (fair-share.ts `latestAverage`). */
export interface LeaseAverage {
  avgMs: number;
  avgAt: number;
}

/**
 * Where the leases live: LEASE_SHARDS items per workspace (lease-shards.ts). Taking a lease is one
 * atomic conditional write on one item (no read-modify-write race between the renders of a busy
 * workspace); the average is a plain overwrite (a lost update of a moving average is harmless).
 */
export interface LeaseStore {
  read(workspaceId: string, shard: number): Promise<RenderShare>;
  /** Every item of the workspace, by shard (an item not written yet is empty). */
  readAll(workspaceId: string): Promise<RenderShare[]>;
  /** Creates the item with this one lease, unless it exists; false then (one write for an item's first lease). */
  create(workspaceId: string, shard: number, token: string, untilMs: number): Promise<boolean>;
  /** Adds the lease unless the item already holds `cap` (expired ones included); false then. */
  add(workspaceId: string, shard: number, token: string, untilMs: number, cap: number): Promise<boolean>;
  /** Removes these expired leases of the item, each only if it is unchanged. */
  prune(workspaceId: string, shard: number, expired: Leases): Promise<void>;
  /** Removes the lease, or keeps it until `keepUntilMs` (a time-out's penalty); records the average. */
  end(
    workspaceId: string,
    shard: number,
    token: string,
    keepUntilMs: number | undefined,
    average: LeaseAverage | undefined,
  ): Promise<void>;
  /** Writes the average onto these items where they hold a lower one (a time-out's, so every item's cap shrinks). */
  raiseAverage(workspaceId: string, shards: number[], average: LeaseAverage): Promise<void>;
}

/** Attempts when a lease was taken by another render between the read and the write. */
const TRIES = 3;

/** The item a lease is to be taken on, as read, and its part of the workspace's cap. */
interface Target {
  shard: number;
  item: RenderShare;
  part: number;
}

/**
 * Takes a render slot of the workspace for `token` until `untilMs`, unless it already holds its
 * cap of live leases. Returns the lease item's shard (giving the lease back writes there), or
 * undefined. A lease costs one read and one write when the token's item has room; a refusal
 * costs two reads (the token's item, then all of them) and no write.
 */
export async function takeLease(
  store: LeaseStore,
  workspaceId: string,
  token: string,
  untilMs: number,
  nowMs: number,
  config: FairShareConfig,
): Promise<number | undefined> {
  const chosen = leaseShardOf(token);
  for (let i = 0; i < TRIES; i++) {
    const target = await pickItem(store, workspaceId, chosen, nowMs, config);
    if (!target) return undefined;
    // The rule (fair-share.ts `admitRender`) on the item's part of the cap; the conditional add
    // makes it hold against other containers taking leases meanwhile.
    const admitted = admitRender(target.item, token, untilMs, nowMs, target.part);
    if (!admitted) continue;
    const expired = Object.fromEntries(Object.entries(target.item.leases).filter(([t]) => !(t in admitted.leases)));
    if (Object.keys(expired).length) await store.prune(workspaceId, target.shard, expired);
    // An item read empty and without an average is most likely not written yet: created with this
    // lease in one write (a part is at least 1); if it exists after all, the lease is added to it.
    const blank = target.item.avgMs === undefined && !Object.keys(target.item.leases).length;
    const write = (first: boolean) =>
      first
        ? store.create(workspaceId, target.shard, token, untilMs)
        : store.add(workspaceId, target.shard, token, untilMs, target.part);
    if (blank && (await orFree(store, workspaceId, target.shard, token, () => write(true)))) return target.shard;
    if (await orFree(store, workspaceId, target.shard, token, () => write(false))) return target.shard;
  }
  return undefined;
}

/**
 * The token's own item when it knows the workspace's average and has room in its part of the cap
 * (one read); otherwise every item is read, the newest average gives the cap, and while the
 * workspace holds less than that the lease goes to an item in use with room, the token's own if it has.
 */
async function pickItem(
  store: LeaseStore,
  workspaceId: string,
  chosen: number,
  nowMs: number,
  config: FairShareConfig,
): Promise<Target | undefined> {
  const own = await store.read(workspaceId, chosen);
  if (own.avgMs !== undefined) {
    const part = shardCap(chosen, inFlightCap(own, config));
    if (held(own, nowMs) < part) return { shard: chosen, item: own, part };
  }
  const items = await store.readAll(workspaceId);
  const cap = inFlightCap(latestAverage(items), config);
  if (items.reduce((n, item) => n + held(item, nowMs), 0) >= cap) return undefined;
  const rooms = Array.from({ length: shardsInUse(cap) }, (_, k) => k).filter(
    (k) => held(items[k] ?? { leases: {} }, nowMs) < shardCap(k, cap),
  );
  // At random among the others: renders racing for the last slots do not all try the same item.
  const shard = rooms.includes(chosen) ? chosen : rooms[Math.floor(Math.random() * rooms.length)];
  return shard === undefined ? undefined : { shard, item: items[shard] ?? { leases: {} }, part: shardCap(shard, cap) };
}

const held = (item: RenderShare, nowMs: number) => Object.keys(liveLeases(item.leases, nowMs)).length;

/** A lease write; when it throws, a write that may have applied before the error came back is undone. */
async function orFree(
  store: LeaseStore,
  workspaceId: string,
  shard: number,
  token: string,
  write: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return await write();
  } catch (error) {
    await store.end(workspaceId, shard, token, undefined, undefined).catch(() => {});
    throw error;
  }
}

/**
 * Ends `token`'s lease on its item: freed, or kept for the penalty when its render timed out; its
 * time joins the item's average. A time-out is charged to the whole workspace, as with one item:
 * its raised average is written to the other items too (so every item's part shrinks), and its
 * penalty lease is kept on an item in use at the smaller cap (so the items that still admit count
 * it). Time-outs are rare and each took a whole budget of browser time: these writes are not hot.
 */
export async function giveBackLease(
  store: LeaseStore,
  workspaceId: string,
  shard: number,
  token: string,
  nowMs: number,
  end: RenderEnd,
  config: FairShareConfig,
): Promise<void> {
  const item = await store.read(workspaceId, shard);
  const next = endLease(
    { ...item, leases: { ...item.leases, [token]: Number.POSITIVE_INFINITY } },
    token,
    nowMs,
    end,
    config.timeoutPenaltyMs,
  );
  const average =
    end.tookMs === undefined || next.avgMs === undefined ? undefined : { avgMs: next.avgMs, avgAt: nowMs };
  const keepUntil = next.leases[token];
  if (!end.timedOut || !average || keepUntil === undefined) {
    await store.end(workspaceId, shard, token, keepUntil, average);
    return;
  }
  const others = Array.from({ length: LEASE_SHARDS }, (_, k) => k).filter((k) => k !== shard);
  await store.raiseAverage(workspaceId, others, average);
  const penaltyShard = await penaltyItem(store, workspaceId, shard, nowMs, inFlightCap(average, config));
  // Taken on its new item before it leaves the old one: the slot is never free in between.
  if (penaltyShard !== shard) await store.add(workspaceId, penaltyShard, token, keepUntil, Number.MAX_SAFE_INTEGER);
  await store.end(workspaceId, shard, token, penaltyShard === shard ? keepUntil : undefined, average);
}

/** Where a penalty lease stays at `cap`: its own item if in use there, else the item in use holding the fewest. */
async function penaltyItem(
  store: LeaseStore,
  workspaceId: string,
  shard: number,
  nowMs: number,
  cap: number,
): Promise<number> {
  const used = shardsInUse(cap);
  if (shard < used) return shard;
  const items = await store.readAll(workspaceId);
  let best = 0;
  for (let k = 1; k < used; k++)
    if (held(items[k] ?? { leases: {} }, nowMs) < held(items[best] ?? { leases: {} }, nowMs)) best = k;
  return best;
}
