import { createHash } from "node:crypto";

/**
 * Where a month's page count lives (infra/README.md#capacity-model). One item per workspace and
 * month takes every page write of the workspace, and a DynamoDB item takes at most 1,000 writes a
 * second: at about 100× the reference load of one workspace that item is the first thing to
 * throttle. So for plans that never stop, the writes of a request go to one of PAGE_SHARDS items
 * chosen by the request id (its reservation, its files' corrections with their exactly-once
 * markers, and their drop all stay on one item), and the month's count is the sum of the items.
 * Plans that stop keep one item: their "within the limit" condition needs the whole count in one
 * place, and their volume is small.
 */

/** Fixed: the count of a month is read from the main item and exactly these shards. */
export const PAGE_SHARDS = 8;

/** The shard of a request's page writes: a hash of its id, so every write of the request lands on the same item. */
export function pageShardOf(spread: string): number {
  return createHash("sha256").update(spread).digest().readUInt32BE(0) % PAGE_SHARDS;
}

/** The item a page write goes to: the month's main item, or the request's shard when spread. */
export function pageItemKey(workspaceId: string, month: string, spread?: string): { pk: string; sk: string } {
  return spread === undefined
    ? { pk: `PAGES#${workspaceId}`, sk: month }
    : { pk: `PAGES#${workspaceId}#${pageShardOf(spread)}`, sk: month };
}

/** Every item a month's count may be spread over: the main item and each shard. */
export function pageItemKeys(workspaceId: string, month: string): { pk: string; sk: string }[] {
  return [
    { pk: `PAGES#${workspaceId}`, sk: month },
    ...Array.from({ length: PAGE_SHARDS }, (_, k) => ({ pk: `PAGES#${workspaceId}#${k}`, sk: month })),
  ];
}
