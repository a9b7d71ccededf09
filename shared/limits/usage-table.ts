import { BatchGetCommand, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { PageCounter } from "./page-quota.ts";
import type { PreviewPageCounter } from "./preview-allowance.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { pageItemKey, pageItemKeys, requestItemsKey, requestOfItem } from "./page-shards.ts";
import type { RateWindows } from "./rate-limiter.ts";

/**
 * The DynamoDB adapters of the limits' ports, both in the usage table: page counts under
 * `PAGES#<workspace>` / month and its shards `PAGES#<workspace>#<k>` / month (page-shards.ts), rate
 * windows under `RATE#<workspace>#<class>` / window start.
 */

/**
 * Adds `pages` to an item's count; with `max`, one conditional ADD that applies only while the count
 * stays at or below it (false, adding nothing, otherwise).
 */
async function addPages(key: { pk: string; sk: string }, pages: number, max?: number): Promise<boolean> {
  const bounded = max !== undefined;
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: key,
        UpdateExpression: "ADD pages :n",
        ...(bounded && { ConditionExpression: "attribute_not_exists(pages) OR pages <= :max" }),
        ExpressionAttributeValues: { ":n": pages, ...(bounded && { ":max": max }) },
      }),
    );
    return true;
  } catch (err) {
    if (bounded && isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Page counts; a bounded `add` is one conditional ADD (DynamoDB has no arithmetic in conditions, hence `max`). */
export const dynamoPageCounter: PageCounter = {
  // A bounded add needs the whole count: the main item (stopping plans never spread).
  add: (workspaceId, month, pages, max, spread) =>
    addPages(pageItemKey(workspaceId, month, max !== undefined ? undefined : spread), pages, max),
  async used(workspaceId, month) {
    const [items, requests] = await Promise.all([
      readPageItems(workspaceId, month),
      billedByRequest(workspaceId, month),
    ]);
    return items + [...requests.values()].reduce((n, pages) => n + pages, 0);
  },
};

/** The month's pages on the items read by key: the main item and the shards of the earlier layout. */
async function readPageItems(workspaceId: string, month: string): Promise<number> {
  const table = config().tables.usage;
  let keys: Record<string, unknown>[] = pageItemKeys(workspaceId, month);
  let used = 0;
  // One BatchGetItem reads the main item and every shard; whatever it leaves unprocessed is read again.
  for (let attempt = 0; keys.length > 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(attempt, 5)));
    const out = await awsClients().ddb.send(
      new BatchGetCommand({
        RequestItems: { [table]: { Keys: keys, ConsistentRead: true, ProjectionExpression: "pages" } },
      }),
    );
    for (const item of out.Responses?.[table] ?? []) used += Number(item.pages ?? 0);
    keys = (out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  return used;
}

/**
 * The pages billed to each request of the month on its own item (plans that never stop,
 * page-shards.ts): request id → pages. One Query of the month's partition.
 */
export async function billedByRequest(workspaceId: string, month: string): Promise<Map<string, number>> {
  const items = await queryAll({
    TableName: config().tables.usage,
    KeyConditionExpression: "pk = :pk",
    ExpressionAttributeValues: { ":pk": requestItemsKey(workspaceId, month) },
    ProjectionExpression: "sk, pages",
    ConsistentRead: true,
  });
  const billed = new Map<string, number>();
  for (const item of items) {
    const requestId = requestOfItem(String(item.sk));
    if (requestId) billed.set(requestId, Number(item.pages ?? 0));
  }
  return billed;
}

/** Rate windows: a conditional ADD that fails once the window holds `limit` requests; items expire a window later. */
export const dynamoRateWindows: RateWindows = {
  async count(workspaceId, rateClass, windowStart, limit, expiresAt) {
    try {
      await awsClients().ddb.send(
        new UpdateCommand({
          TableName: config().tables.usage,
          Key: { pk: `RATE#${workspaceId}#${rateClass}`, sk: String(windowStart) },
          UpdateExpression: "ADD #count :one SET expiresAt = :expires",
          ConditionExpression: "attribute_not_exists(#count) OR #count < :limit",
          ExpressionAttributeNames: { "#count": "count" },
          ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":expires": expiresAt },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  },
};

/**
 * Preview pages (preview-allowance.ts): one item a workspace and month, `PREVIEW#<workspace>` / month, apart from the
 * generation pages' `PAGES#…` items, so no page count, bill or reconciliation ever reads it.
 */
export const dynamoPreviewCounter: PreviewPageCounter = {
  add: (workspaceId, month, pages, max) => addPages(previewItemKey(workspaceId, month), pages, max),
  async used(workspaceId, month) {
    const out = await awsClients().ddb.send(
      new GetCommand({
        TableName: config().tables.usage,
        Key: previewItemKey(workspaceId, month),
        ConsistentRead: true,
      }),
    );
    return Number(out.Item?.pages ?? 0);
  },
};

/** The usage table's item of a workspace's preview pages in a month. */
export const previewItemKey = (workspaceId: string, month: string) => ({ pk: `PREVIEW#${workspaceId}`, sk: month });
