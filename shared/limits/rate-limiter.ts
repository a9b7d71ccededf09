import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type RateClass, rateLimits } from "./limits-config.ts";

const WINDOW_SECONDS = 60;

/**
 * spec 8: a fixed one-minute window per workspace and class, counted with a conditional
 * ADD (DESIGN: rate limits): the write that would pass the limit fails, so concurrent
 * requests can never exceed it. Over the limit → 429 RATE_LIMITED with the seconds until
 * the window frees (Retry-After and body `retryAfter`).
 */
export async function checkRateLimit(workspaceId: string, rateClass: RateClass, clock: Clock): Promise<void> {
  const limit = rateLimits()[rateClass];
  const nowSeconds = clock.now().getTime() / 1000;
  const windowStart = Math.floor(nowSeconds / WINDOW_SECONDS) * WINDOW_SECONDS;
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: { pk: `RATE#${workspaceId}#${rateClass}`, sk: String(windowStart) },
        UpdateExpression: "ADD #count :one SET expiresAt = :expires",
        ConditionExpression: "attribute_not_exists(#count) OR #count < :limit",
        ExpressionAttributeNames: { "#count": "count" },
        ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":expires": windowStart + 2 * WINDOW_SECONDS },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const retryAfter = Math.max(1, Math.ceil(windowStart + WINDOW_SECONDS - nowSeconds));
    throw new PlatenError("RATE_LIMITED", { retryAfter });
  }
}
