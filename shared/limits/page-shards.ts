import { createHash } from "node:crypto";

/**
 * Where a month's page count lives (infra/README.md#capacity-model, shared/limits/README.md#billing-reconciliation).
 * One item per workspace and month would take every page write of the workspace, and a DynamoDB item takes
 * at most 1,000 writes a second. So for plans that never stop, every page write of a request goes to
 * that request's own item (`PAGES#<workspace>#<month>` / `REQ#<request>`): its reservation, its files'
 * corrections and their exactly-once markers, which are never dropped (the item holds one request's
 * files), so a second count of a file finds its marker whenever it comes. The item's `pages` is what
 * the request was billed, and the month's count is the sum of the month's request items.
 * Plans that stop keep one item: their "within the limit" condition needs the whole count in one
 * place, and their volume is small.
 *
 * Requests accepted before the request items (their records say `pagesSpread`) wrote to one of
 * PAGE_SHARDS shard items chosen by the request id; those items are still read and written for them.
 */

/** Fixed: the count of a month is read from the main item and exactly these shards. */
export const PAGE_SHARDS = 8;

/**
 * Where a request's page writes go on a plan that never stops: its own item (`request`), or for a
 * request accepted before those (`pagesSpread` on its records) its shard of the month (`shard`).
 */
export interface PageSpread {
  requestId: string;
  layout: "request" | "shard";
}

/** The shard of a request's page writes (the earlier layout): a hash of its id, so every write of the request lands on the same item. */
export function pageShardOf(requestId: string): number {
  return createHash("sha256").update(requestId).digest().readUInt32BE(0) % PAGE_SHARDS;
}

/** The partition of a month's request items (one Query reads them all). */
export const requestItemsKey = (workspaceId: string, month: string) => `PAGES#${workspaceId}#${month}`;
const REQUEST_SK = "REQ#";

/** The request a request item counts (undefined for any other item). */
export const requestOfItem = (sk: string): string | undefined =>
  sk.startsWith(REQUEST_SK) ? sk.slice(REQUEST_SK.length) : undefined;

/** The item a page write goes to: the month's main item, or the request's own item (or its shard) when spread. */
export function pageItemKey(workspaceId: string, month: string, spread?: PageSpread): { pk: string; sk: string } {
  if (spread === undefined) return { pk: `PAGES#${workspaceId}`, sk: month };
  if (spread.layout === "request")
    return { pk: requestItemsKey(workspaceId, month), sk: `${REQUEST_SK}${spread.requestId}` };
  return { pk: `PAGES#${workspaceId}#${pageShardOf(spread.requestId)}`, sk: month };
}

/** The items of a month's count read by key: the main item and each shard (the request items are queried). */
export function pageItemKeys(workspaceId: string, month: string): { pk: string; sk: string }[] {
  return [
    { pk: `PAGES#${workspaceId}`, sk: month },
    ...Array.from({ length: PAGE_SHARDS }, (_, k) => ({ pk: `PAGES#${workspaceId}#${k}`, sk: month })),
  ];
}
