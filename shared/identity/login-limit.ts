import { createHash } from "node:crypto";
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { normalizeEmail } from "./users.ts";

/**
 * Login limits (shared/identity/README.md#sessions-and-login). Attempts are counted before the password check
 * per source address and account (so ten bad tries from one place stop that place only, never the account's
 * owner elsewhere) and per source address. Failed passwords are counted per account over a longer window:
 * past `accountFailures.limit` the account backs off for devices it never signed in on.
 */
export const LOGIN_LIMITS = {
  windowSeconds: 15 * 60,
  perAddressAndAccount: 10,
  perAddress: 50,
  accountFailures: { windowSeconds: 60 * 60, limit: 30 },
};

const hashed = (value: string) => createHash("sha256").update(value).digest("base64url");
const accountKey = (email: string) => hashed(normalizeEmail(email));
const windowOf = (clock: Clock, seconds: number) => Math.floor(clock.now().getTime() / 1000 / seconds) * seconds;

/** Adds one to a windowed counter unless it reached `limit` (no limit: always); false when it had. */
async function countAttempt(pk: string, windowStart: number, windowSeconds: number, limit?: number): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.oauth,
        Key: { pk, sk: String(windowStart) },
        UpdateExpression: "ADD #count :one SET expiresAt = :expires",
        ...(limit !== undefined && { ConditionExpression: "attribute_not_exists(#count) OR #count < :limit" }),
        ExpressionAttributeNames: { "#count": "count" },
        ExpressionAttributeValues: {
          ":one": 1,
          ":expires": windowStart + 2 * windowSeconds,
          ...(limit !== undefined && { ":limit": limit }),
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
 * Counts a login attempt for the pair (source address, e-mail) — whether or not such a user exists: the answer
 * must not tell — and for the source address, with a conditional ADD per fixed window. Returns false when
 * either is over its limit: the form then answers 429.
 */
export async function allowLoginAttempt(email: string, sourceAddress: string, clock: Clock): Promise<boolean> {
  const { windowSeconds, perAddressAndAccount, perAddress } = LOGIN_LIMITS;
  const windowStart = windowOf(clock, windowSeconds);
  const [pair, address] = await Promise.all([
    countAttempt(
      `LOGIN#pair#${hashed(`${sourceAddress}\n${normalizeEmail(email)}`)}`,
      windowStart,
      windowSeconds,
      perAddressAndAccount,
    ),
    countAttempt(`LOGIN#address#${hashed(sourceAddress)}`, windowStart, windowSeconds, perAddress),
  ]);
  return pair && address;
}

/** Records a wrong password (or an unknown e-mail) for the account's slower back-off. */
export async function countAccountFailure(email: string, clock: Clock): Promise<void> {
  const { windowSeconds } = LOGIN_LIMITS.accountFailures;
  await countAttempt(`LOGIN#failures#${accountKey(email)}`, windowOf(clock, windowSeconds), windowSeconds);
}

/** Whether the account has had too many wrong passwords this window: unknown devices then wait. */
export async function accountBackingOff(email: string, clock: Clock): Promise<boolean> {
  const { windowSeconds, limit } = LOGIN_LIMITS.accountFailures;
  const out = await awsClients().ddb.send(
    new GetCommand({
      TableName: config().tables.oauth,
      Key: { pk: `LOGIN#failures#${accountKey(email)}`, sk: String(windowOf(clock, windowSeconds)) },
    }),
  );
  return Number(out.Item?.count ?? 0) >= limit;
}
