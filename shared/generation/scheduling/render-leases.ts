import {
  type FairShareConfig,
  inFlightCap,
  latestAverage,
  type Leases,
  liveLeases,
  movingAverage,
  type RenderEnd,
  type RenderShare,
} from "./fair-share.ts";
import { LEASE_SHARDS, leaseShardOf, shardCap, shardsInUse } from "./lease-shards.ts";

/** An average with the time it was written (fair-share.ts `latestAverage`). */
export interface LeaseAverage {
  avgMs: number;
  avgAt: number;
}

/** A lease given back: removed, or kept until `keepUntilMs`. */
export interface LeaseEnd {
  token: string;
  keepUntilMs?: number;
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
  /** Creates the item with these leases, unless it exists; false then (one write for an item's first leases). */
  create(workspaceId: string, shard: number, tokens: string[], untilMs: number): Promise<boolean>;
  /** Adds the leases unless the item would then hold more than `cap` (expired ones included); false then. */
  add(workspaceId: string, shard: number, tokens: string[], untilMs: number, cap: number): Promise<boolean>;
  /** Removes these expired leases of the item, each only if it is unchanged. */
  prune(workspaceId: string, shard: number, expired: Leases): Promise<void>;
  /** Removes each lease, or keeps it until its `keepUntilMs` (a time-out's penalty); records the average. One write. */
  end(workspaceId: string, shard: number, leases: LeaseEnd[], average: LeaseAverage | undefined): Promise<void>;
  /** Writes the average onto these items where they hold a lower one (a time-out's, so every item's cap shrinks). */
  raiseAverage(workspaceId: string, shards: number[], average: LeaseAverage): Promise<void>;
}

/** Attempts when a lease was taken by another render between the read and the write. */
const TRIES = 3;

/** The item leases are to be taken on, as read, its part of the workspace's cap, and how many fit now. */
interface Target {
  shard: number;
  item: RenderShare;
  part: number;
  room: number;
}

/** Leases taken in one write: the item that holds them and their tokens. */
export interface TakenLeases {
  shard: number;
  tokens: string[];
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
  return (await takeLeases(store, workspaceId, [token], untilMs, nowMs, config))[0]?.shard;
}

/**
 * Takes up to `tokens.length` render slots of the workspace for a batch's files: as many as fit on
 * one item's part of the cap in one conditional write, then the rest on other items with room, one
 * write per item, while the workspace holds less than its cap. One write when an item's part has
 * room for all (a cap of 8 × the batch or more: fast documents); a small cap, split one lease per
 * item, takes one write per lease as before. Empty when the workspace holds its cap. A failed write
 * frees the leases taken before it and throws.
 */
export async function takeLeases(
  store: LeaseStore,
  workspaceId: string,
  tokens: string[],
  untilMs: number,
  nowMs: number,
  config: FairShareConfig,
): Promise<TakenLeases[]> {
  const taken: TakenLeases[] = [];
  try {
    for (let rest = tokens; rest.length; ) {
      const more = await takeOnItem(store, workspaceId, rest, untilMs, nowMs, config);
      if (!more) break;
      taken.push(more);
      rest = rest.slice(more.tokens.length);
    }
    return taken;
  } catch (error) {
    const free = taken.map((t) => ({ shard: t.shard, leases: t.tokens.map((token) => ({ token })) }));
    await Promise.all(free.map((f) => store.end(workspaceId, f.shard, f.leases, undefined).catch(() => {})));
    throw error;
  }
}

/**
 * Takes up to `tokens.length` slots in one conditional write on one item: as many as that item's
 * part of the cap has room for, at least one, or none when the workspace holds its cap. The first
 * token chooses the item.
 */
async function takeOnItem(
  store: LeaseStore,
  workspaceId: string,
  tokens: string[],
  untilMs: number,
  nowMs: number,
  config: FairShareConfig,
): Promise<TakenLeases | undefined> {
  const chosen = leaseShardOf(tokens[0]!);
  for (let i = 0; i < TRIES; i++) {
    const target = await pickItem(store, workspaceId, chosen, tokens.length, nowMs, config);
    if (!target) return undefined;
    const mine = tokens.slice(0, target.room);
    const live = liveLeases(target.item.leases, nowMs);
    const expired = Object.fromEntries(Object.entries(target.item.leases).filter(([t]) => !(t in live)));
    if (Object.keys(expired).length) await store.prune(workspaceId, target.shard, expired);
    // An item read empty and without an average is most likely not written yet: created with these
    // leases in one write (they fit its part); if it exists after all, they are added to it. The
    // conditional add makes the rule hold against other containers taking leases meanwhile.
    const blank = target.item.avgMs === undefined && !Object.keys(target.item.leases).length;
    const write = (first: boolean) =>
      first
        ? store.create(workspaceId, target.shard, mine, untilMs)
        : store.add(workspaceId, target.shard, mine, untilMs, target.part);
    const taken = { shard: target.shard, tokens: mine };
    if (blank && (await orFree(store, workspaceId, target.shard, mine, () => write(true)))) return taken;
    if (await orFree(store, workspaceId, target.shard, mine, () => write(false))) return taken;
  }
  return undefined;
}

/**
 * The token's own item when it knows the workspace's average and has room in its part of the cap
 * (one read); otherwise every item is read, the newest average gives the cap, and while the
 * workspace holds less than that the leases go to an item in use with room (for all `wanted` if
 * one has it), the token's own if it qualifies.
 */
async function pickItem(
  store: LeaseStore,
  workspaceId: string,
  chosen: number,
  wanted: number,
  nowMs: number,
  config: FairShareConfig,
): Promise<Target | undefined> {
  const own = await store.read(workspaceId, chosen);
  if (own.avgMs !== undefined) {
    const part = shardCap(chosen, inFlightCap(own, config));
    const room = Math.min(wanted, part - held(own, nowMs));
    if (room > 0) return { shard: chosen, item: own, part, room };
  }
  const items = await store.readAll(workspaceId);
  const cap = inFlightCap(latestAverage(items), config);
  const left = cap - items.reduce((n, item) => n + held(item, nowMs), 0);
  if (left <= 0) return undefined;
  const roomOf = (k: number) => Math.min(wanted, left, shardCap(k, cap) - held(items[k] ?? { leases: {} }, nowMs));
  const rooms = Array.from({ length: shardsInUse(cap) }, (_, k) => k).filter((k) => roomOf(k) > 0);
  const most = Math.max(0, ...rooms.map(roomOf));
  const best = rooms.filter((k) => roomOf(k) === most);
  // At random among the others: renders racing for the last slots do not all try the same item.
  const shard = best.includes(chosen) ? chosen : best[Math.floor(Math.random() * best.length)];
  return shard === undefined
    ? undefined
    : { shard, item: items[shard] ?? { leases: {} }, part: shardCap(shard, cap), room: roomOf(shard) };
}

const held = (item: RenderShare, nowMs: number) => Object.keys(liveLeases(item.leases, nowMs)).length;

/** A lease write; when it throws, a write that may have applied before the error came back is undone. */
async function orFree(
  store: LeaseStore,
  workspaceId: string,
  shard: number,
  tokens: string[],
  write: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return await write();
  } catch (error) {
    await store
      .end(
        workspaceId,
        shard,
        tokens.map((token) => ({ token })),
        undefined,
      )
      .catch(() => {});
    throw error;
  }
}

/**
 * Ends `token`'s lease on its item: freed, or kept for the penalty when its render timed out; its
 * time joins the item's average (`giveBackLeases` with one lease).
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
  const took = end.tookMs === undefined ? [] : [end.tookMs];
  await giveBackLeases(store, workspaceId, shard, [{ token, timedOut: end.timedOut }], took, nowMs, config);
}

/**
 * Ends leases taken together on one item in one write: each freed, or kept for the penalty when a
 * render in it timed out; the renders' times (`tookMs`, in order; a time-out's is the whole budget)
 * join the item's average. A time-out is charged to the whole workspace, as with one item: its
 * raised average is written to the other items too (so every item's part shrinks), and its penalty
 * leases are kept on an item in use at the smaller cap (so the items that still admit count them).
 * Time-outs are rare and each took a whole budget of browser time: these writes are not hot.
 */
export async function giveBackLeases(
  store: LeaseStore,
  workspaceId: string,
  shard: number,
  ends: { token: string; timedOut: boolean }[],
  tookMs: number[],
  nowMs: number,
  config: FairShareConfig,
): Promise<void> {
  const item = await store.read(workspaceId, shard);
  const avgMs = tookMs.reduce<number | undefined>((avg, took) => movingAverage(avg, took), item.avgMs);
  const average = tookMs.length === 0 || avgMs === undefined ? undefined : { avgMs, avgAt: nowMs };
  const penaltyUntil = nowMs + config.timeoutPenaltyMs;
  const kept = ends.map((e) => ({ token: e.token, ...(e.timedOut && { keepUntilMs: penaltyUntil }) }));
  const charged = ends.filter((e) => e.timedOut).map((e) => e.token);
  if (!charged.length || !average) {
    await store.end(workspaceId, shard, kept, average);
    return;
  }
  const others = Array.from({ length: LEASE_SHARDS }, (_, k) => k).filter((k) => k !== shard);
  await store.raiseAverage(workspaceId, others, average);
  const penaltyShard = await penaltyItem(store, workspaceId, shard, nowMs, inFlightCap(average, config));
  // Taken on their new item before they leave the old one: the slots are never free in between.
  if (penaltyShard !== shard)
    await store.add(workspaceId, penaltyShard, charged, penaltyUntil, Number.MAX_SAFE_INTEGER);
  await store.end(workspaceId, shard, penaltyShard === shard ? kept : kept.map((k) => ({ token: k.token })), average);
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
