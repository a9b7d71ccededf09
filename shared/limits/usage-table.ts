import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { PageCounter } from "./page-quota.ts";
import type { RateWindows } from "./rate-limiter.ts";

/**
 * The DynamoDB adapters of the limits' ports, both in the usage table: page counts under
 * `PAGES#<workspace>` / month, rate windows under `RATE#<workspace>#<class>` / window start.
 */

const pagesKey = (workspaceId: string, month: string) => ({ pk: `PAGES#${workspaceId}`, sk: month });

/** Page counts; a bounded `add` is one conditional ADD (DynamoDB has no arithmetic in conditions, hence `max`). */
export const dynamoPageCounter: PageCounter = {
  async add(workspaceId, month, pages, max) {
    const bounded = max !== undefined;
    try {
      await awsClients().ddb.send(
        new UpdateCommand({
          TableName: config().tables.usage,
          Key: pagesKey(workspaceId, month),
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
  },
  async used(workspaceId, month) {
    const out = await awsClients().ddb.send(
      new GetCommand({ TableName: config().tables.usage, Key: pagesKey(workspaceId, month), ConsistentRead: true }),
    );
    return Number(out.Item?.pages ?? 0);
  },
};

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
