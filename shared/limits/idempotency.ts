import { createHash, randomUUID } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { limitsText } from "./limits-text.ts";

/** A key is honoured for 24 hours after its first use. */
const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/**
 * How long a claim may stay pending: past the 60 s sync deadline plus slack. A request
 * that died (crash, killed Lambda) frees its key after this lease instead of 24 h.
 */
const PENDING_LEASE_SECONDS = 90;
const MAX_KEY_LENGTH = 255;

export type IdempotencyClaim<T> = { replay: T } | { commit(result: T): Promise<void>; abandon(): Promise<void> };

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Claims an Idempotency-Key for a request fingerprint (method, path, format, body).
 * First use: a pending record is written (conditional put) and the caller commits its
 * result or abandons the claim on failure. A repeat with the same fingerprint replays
 * the committed result (or 409 while the first is still running); a different
 * fingerprint is 400 IDEMPOTENCY_KEY_REUSED.
 */
export async function claimIdempotencyKey<T>(
  workspaceId: string,
  key: string,
  fingerprint: string,
  clock: Clock,
): Promise<IdempotencyClaim<T>> {
  if (!key.trim() || key.length > MAX_KEY_LENGTH) {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        {
          field: "Idempotency-Key",
          code: "VALIDATION_FAILED",
          text: fillBoth(limitsText.idempotencyKeyLength, { max: MAX_KEY_LENGTH }),
        },
      ],
    });
  }
  const Key = { pk: `IDEM#${workspaceId}#${sha256(key)}`, sk: "IDEM" };
  const TableName = config().tables.usage;
  const now = Math.floor(clock.now().getTime() / 1000);
  const bodyHash = sha256(fingerprint);
  const claimId = randomUUID();
  try {
    // A done record lives 24 h; a pending one only its lease, after which a retry takes over.
    await awsClients().ddb.send(
      new PutCommand({
        TableName,
        Item: { ...Key, bodyHash, claimId, state: "pending", expiresAt: now + PENDING_LEASE_SECONDS },
        ConditionExpression: "attribute_not_exists(pk) OR expiresAt <= :now",
        ExpressionAttributeValues: { ":now": now },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return existingClaim<T>(TableName, Key, bodyHash);
  }
  return {
    // Only the claim's owner may commit or free it (a taken-over claim belongs to the retry).
    commit: async (result) => {
      await awsClients()
        .ddb.send(
          new UpdateCommand({
            TableName,
            Key,
            UpdateExpression: "SET #state = :done, #result = :result, expiresAt = :expires",
            ConditionExpression: "claimId = :mine",
            ExpressionAttributeNames: { "#state": "state", "#result": "result" },
            ExpressionAttributeValues: {
              ":done": "done",
              ":result": JSON.stringify(result),
              ":expires": Math.floor(clock.now().getTime() / 1000) + IDEMPOTENCY_TTL_SECONDS,
              ":mine": claimId,
            },
          }),
        )
        .catch(ignoreConditionalCheckFailed);
    },
    abandon: async () => {
      await awsClients()
        .ddb.send(
          new DeleteCommand({
            TableName,
            Key,
            ConditionExpression: "claimId = :mine",
            ExpressionAttributeValues: { ":mine": claimId },
          }),
        )
        .catch(ignoreConditionalCheckFailed);
    },
  };
}

async function existingClaim<T>(
  TableName: string,
  Key: Record<string, string>,
  bodyHash: string,
): Promise<IdempotencyClaim<T>> {
  const out = await awsClients().ddb.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
  const item = out.Item as { bodyHash: string; state: string; result?: string } | undefined;
  if (item && item.bodyHash !== bodyHash) throw new PlatenError("IDEMPOTENCY_KEY_REUSED");
  if (item?.state === "done" && item.result) return { replay: JSON.parse(item.result) as T };
  // Still running (e.g. a client retrying after a 504): come back shortly.
  throw new PlatenError("IDEMPOTENCY_KEY_IN_PROGRESS", { retryAfter: 2 });
}
