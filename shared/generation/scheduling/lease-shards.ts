import { createHash } from "node:crypto";

/**
 * Where a workspace's render leases live (infra/README.md#capacity-model). One item per workspace
 * takes two writes per render (the lease taken, the lease given back), and a DynamoDB item takes at
 * most 1,000 writes a second: at about 100× the reference load of one workspace that item is the
 * first thing to throttle. So the leases are spread over LEASE_SHARDS items and the workspace's cap is
 * split between them: a render's random token chooses its item, and each item admits at most its part
 * of the cap (`shardCap`), the parts summing to the cap. A cap below LEASE_SHARDS uses only its first
 * `cap` items, one lease each, so a workspace with a cap of 1 still renders and one with a cap of N
 * can hold N (fair-render.ts falls back to another item when the chosen one is full or not in use).
 */

/** Fixed: a workspace's leases are read from exactly these items. */
export const LEASE_SHARDS = 8;

/** The item a render's token chooses first: a hash of the token, so tokens spread evenly. */
export function leaseShardOf(token: string): number {
  return createHash("sha256").update(token).digest().readUInt32BE(0) % LEASE_SHARDS;
}

/** Items in use at this cap: all of them, or one per lease when the cap is smaller. */
export function shardsInUse(cap: number): number {
  return Math.max(1, Math.min(LEASE_SHARDS, cap));
}

/**
 * The part of `cap` that item `shard` may hold: the cap split as evenly as it goes over the items in
 * use (the first ones take the remainder), nothing on the others. The parts sum to `cap` and each
 * grows with the cap, so leases taken under different caps never sum past the larger one.
 */
export function shardCap(shard: number, cap: number): number {
  const used = shardsInUse(cap);
  if (shard >= used) return 0;
  return Math.floor(cap / used) + (shard < cap % used ? 1 : 0);
}

/** The lease item `shard` of a workspace: item 0 keeps the key of the former single item. */
export function leaseItemKey(workspaceId: string, shard: number): { pk: string; sk: string } {
  return { pk: shard === 0 ? `RENDERING#${workspaceId}` : `RENDERING#${workspaceId}#${shard}`, sk: "LEASES" };
}
