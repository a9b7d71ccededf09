import { createHash } from "node:crypto";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { normalizeEmail } from "./users.ts";

/** Login attempts allowed per window (spec is silent; per account and per source address). */
export const LOGIN_LIMITS = { windowSeconds: 15 * 60, perAccount: 10, perAddress: 50 };

const hashed = (value: string) => createHash("sha256").update(value).digest("base64url");

async function countAttempt(pk: string, limit: number, windowStart: number): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.oauth,
        Key: { pk, sk: String(windowStart) },
        UpdateExpression: "ADD #count :one SET expiresAt = :expires",
        ConditionExpression: "attribute_not_exists(#count) OR #count < :limit",
        ExpressionAttributeNames: { "#count": "count" },
        ExpressionAttributeValues: {
          ":one": 1,
          ":limit": limit,
          ":expires": windowStart + 2 * LOGIN_LIMITS.windowSeconds,
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/**
 * Counts a login attempt for the e-mail (whether or not such a user exists: the answer
 * must not tell) and for the source address, with a conditional ADD per fixed window.
 * Returns false when either is over its limit: the form then answers 429.
 */
export async function allowLoginAttempt(email: string, sourceAddress: string, clock: Clock): Promise<boolean> {
  const now = clock.now().getTime() / 1000;
  const windowStart = Math.floor(now / LOGIN_LIMITS.windowSeconds) * LOGIN_LIMITS.windowSeconds;
  const [account, address] = await Promise.all([
    countAttempt(`LOGIN#account#${hashed(normalizeEmail(email))}`, LOGIN_LIMITS.perAccount, windowStart),
    countAttempt(`LOGIN#address#${hashed(sourceAddress)}`, LOGIN_LIMITS.perAddress, windowStart),
  ]);
  return account && address;
}
