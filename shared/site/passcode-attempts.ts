import { createHash } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed, updateIf } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";

/** At most 5 passcode attempts per 15 minutes per file and address. */
export const PASSCODE_ATTEMPT_LIMIT = 5;
export const PASSCODE_WINDOW_SECONDS = 15 * 60;

export type AttemptOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface AttemptSubject {
  requestId: string;
  fileId: string;
  /** The client address; stored only as a hash. */
  address: string;
}

const attemptKey = (s: AttemptSubject) => {
  const address = createHash("sha256").update(s.address).digest("base64url").slice(0, 22);
  return { pk: `PASSCODE#${s.requestId}#${s.fileId}#${address}`, sk: "window" };
};

/**
 * Takes one attempt before the passcode is checked, so at most five checks ever run in a
 * window whatever their outcome and however many arrive at once: the count only grows by
 * a conditional write. A window starts at its first attempt and lasts 15 minutes.
 */
export async function takePasscodeAttempt(subject: AttemptSubject, clock: Clock): Promise<AttemptOutcome> {
  const TableName = config().tables.usage;
  const Key = attemptKey(subject);
  for (let round = 0; round < 3; round++) {
    const now = Math.floor(clock.now().getTime() / 1000);
    const cutoff = now - PASSCODE_WINDOW_SECONDS;
    const counted = await updateIf({
      TableName,
      Key,
      UpdateExpression: "ADD #count :one",
      ConditionExpression: "windowStart > :cutoff AND #count < :limit",
      ExpressionAttributeNames: { "#count": "count" },
      ExpressionAttributeValues: { ":one": 1, ":cutoff": cutoff, ":limit": PASSCODE_ATTEMPT_LIMIT },
    });
    if (counted) return { allowed: true };
    const { Item } = await awsClients().ddb.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
    const windowStart = Number(Item?.windowStart ?? 0);
    if (Item && windowStart > cutoff)
      return { allowed: false, retryAfterSeconds: Math.max(1, windowStart + PASSCODE_WINDOW_SECONDS - now) };
    if (await startWindow(TableName, Key, now, cutoff)) return { allowed: true };
  }
  // Three lost races in a row: someone is hammering this file from this address.
  return { allowed: false, retryAfterSeconds: PASSCODE_WINDOW_SECONDS };
}

/** A new window holding this first attempt, unless another request just started one. */
async function startWindow(
  TableName: string,
  Key: Record<string, string>,
  now: number,
  cutoff: number,
): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new PutCommand({
        TableName,
        Item: { ...Key, count: 1, windowStart: now, expiresAt: now + PASSCODE_WINDOW_SECONDS * 2 },
        ConditionExpression: "attribute_not_exists(pk) OR windowStart <= :cutoff",
        ExpressionAttributeValues: { ":cutoff": cutoff },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}
