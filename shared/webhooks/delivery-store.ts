import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import * as z from "zod";
import { deliveryEventSchema } from "./generation-event.ts";

/** One attempt in the delivery log. */
export const attemptLogEntrySchema = z.object({
  attempt: z.number(),
  manual: z.boolean().optional(),
  url: z.string(),
  startedAt: z.string(),
  latencyMs: z.number(),
  statusCode: z.number().optional(),
  error: z.string().optional(),
  /** `retry`: failed, another attempt is scheduled; `skipped`: endpoint disabled or deleted, nothing sent. */
  outcome: z.enum(["delivered", "retry", "failed", "skipped"]),
});
export type AttemptLogEntry = z.infer<typeof attemptLogEntrySchema>;

/**
 * One delivery (event × endpoint) and its attempts: the source of truth of the dispatcher.
 * Queue messages only wake it up; the conditional claim below decides who may POST.
 */
export const deliveryRecordSchema = deliveryEventSchema.extend({
  endpointId: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  /** Attempts that finished (success or not). Attempt n may start only when this is n − 1. */
  attemptsDone: z.number(),
  /** The attempt being made, and until when (epoch ms) the claim holds. */
  claimedAttempt: z.number().optional(),
  claimUntil: z.number().optional(),
  /** The attempt whose queue message was sent (lets a replay re-send a lost one, once). */
  scheduledAttempt: z.number().optional(),
  /** Set by a manual redelivery: that attempt is not retried. */
  manualAttempt: z.number().optional(),
  nextAttemptAt: z.string().optional(),
  attempts: z.array(attemptLogEntrySchema),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Epoch seconds; 30 days after creation or the last redelivery. */
  expiresAt: z.number(),
});
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>;

/** What addresses a delivery item: the endpoint's log partition plus its sort key parts. */
export const deliveryRefSchema = deliveryRecordSchema.pick({ endpointId: true, createdAt: true, deliveryId: true });
export type DeliveryRef = z.infer<typeof deliveryRefSchema>;

/**
 * The delivery log as the dispatcher, the enqueuer and the log's readers use it;
 * `dynamoDeliveryStore` keeps it in the webhooks table (partition `EP#<endpointId>`).
 */
export interface DeliveryStore {
  /** False when it already exists (a replayed enqueue). */
  create(record: DeliveryRecord): Promise<boolean>;
  get(ref: DeliveryRef): Promise<DeliveryRecord | undefined>;
  find(deliveryId: string): Promise<DeliveryRecord | undefined>;
  /** The claimed record, or undefined when the attempt may not start. */
  claimAttempt(ref: DeliveryRef, attempt: number, leaseMs: number, now: Date): Promise<DeliveryRecord | undefined>;
  /** False if the claim was lost meanwhile. */
  recordAttempt(ref: DeliveryRef, attempt: number, result: AttemptRecord, now: Date): Promise<boolean>;
  markScheduled(ref: DeliveryRef, attempt: number): Promise<void>;
  /** False when it is still pending or changed meanwhile. */
  reopen(record: DeliveryRecord, now: Date, expiresAt: number): Promise<boolean>;
  /** Newest first, without expired items. */
  list(endpointId: string, now: Date, limit?: number): Promise<DeliveryRecord[]>;
}

const table = () => config().tables.webhooks;
const keyOf = (r: DeliveryRef) => ({ pk: `EP#${r.endpointId}`, sk: `DLV#${r.createdAt}#${r.deliveryId}` });
const decode = (item: Record<string, unknown>) => decodeStoredItem(deliveryRecordSchema, table(), item);

/** Writes a new delivery; false when it already exists (a replayed enqueue). */
export async function createDelivery(record: DeliveryRecord): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new PutCommand({
        TableName: table(),
        Item: { ...keyOf(record), ...record },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** One delivery (consistent read). */
export async function getDelivery(ref: DeliveryRef): Promise<DeliveryRecord | undefined> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: keyOf(ref), ConsistentRead: true }),
  );
  return out.Item ? decode(out.Item) : undefined;
}

/** A delivery by id alone, through the `byDelivery` index (eventually consistent: operators). */
export async function findDelivery(deliveryId: string): Promise<DeliveryRecord | undefined> {
  const out = await awsClients().ddb.send(
    new QueryCommand({
      TableName: table(),
      IndexName: "byDelivery",
      KeyConditionExpression: "deliveryId = :id",
      ExpressionAttributeValues: { ":id": deliveryId },
    }),
  );
  const item = out.Items?.[0];
  return item ? getDelivery(decodeStoredItem(deliveryRefSchema, table(), item)) : undefined;
}

/**
 * Claims attempt `attempt` for this invocation. It succeeds only while the delivery is
 * pending, attempt − 1 has finished, and no live claim on this attempt exists — so two
 * copies of one queue message never both POST. An expired claim (a crashed invocation)
 * may be taken over. Returns the claimed record, or undefined.
 */
export async function claimAttempt(
  ref: DeliveryRef,
  attempt: number,
  leaseMs: number,
  now: Date,
): Promise<DeliveryRecord | undefined> {
  try {
    const out = await awsClients().ddb.send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(ref),
        UpdateExpression: "SET claimedAttempt = :n, claimUntil = :until",
        ConditionExpression:
          "#status = :pending AND attemptsDone = :previous AND (attribute_not_exists(claimedAttempt) OR claimedAttempt < :n OR claimUntil < :now)",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":n": attempt,
          ":previous": attempt - 1,
          ":pending": "pending",
          ":until": now.getTime() + leaseMs,
          ":now": now.getTime(),
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    // ALL_NEW always answers the item; without it, the error names the key that was updated.
    return decode(out.Attributes ?? keyOf(ref));
  } catch (err) {
    if (isConditionalCheckFailed(err)) return undefined;
    throw err;
  }
}

/** The outcome of a claimed attempt, appended to the log. */
export interface AttemptRecord {
  status: DeliveryRecord["status"];
  entry: AttemptLogEntry;
  nextAttemptAt?: string;
}

/** Finishes a claimed attempt; false if the claim was lost meanwhile (taken over after expiry). */
export async function recordAttempt(
  ref: DeliveryRef,
  attempt: number,
  result: AttemptRecord,
  now: Date,
): Promise<boolean> {
  const values: Record<string, unknown> = {
    ":n": attempt,
    ":status": result.status,
    ":now": now.toISOString(),
    ":entry": [result.entry],
    ":empty": [],
  };
  if (result.nextAttemptAt) values[":next"] = result.nextAttemptAt;
  const next = result.nextAttemptAt ? ", nextAttemptAt = :next" : "";
  const removeNext = result.nextAttemptAt ? "" : ", nextAttemptAt";
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(ref),
        UpdateExpression: `SET attemptsDone = :n, #status = :status, updatedAt = :now, attempts = list_append(if_not_exists(attempts, :empty), :entry)${next} REMOVE claimedAttempt, claimUntil${removeNext}`,
        ConditionExpression: "claimedAttempt = :n",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Notes that the queue message of `attempt` was sent (only moves forward). */
export async function markScheduled(ref: DeliveryRef, attempt: number): Promise<void> {
  await awsClients()
    .ddb.send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(ref),
        UpdateExpression: "SET scheduledAttempt = :n",
        ConditionExpression: "attribute_not_exists(scheduledAttempt) OR scheduledAttempt < :n",
        ExpressionAttributeValues: { ":n": attempt },
      }),
    )
    .catch(ignoreConditionalCheckFailed);
}

/**
 * Re-opens a finished delivery for one manual attempt (`redeliver`): pending again, the
 * next attempt number marked manual. False when it is still pending or changed meanwhile.
 */
export async function reopenDelivery(record: DeliveryRecord, now: Date, expiresAt: number): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: table(),
        Key: keyOf(record),
        UpdateExpression:
          "SET #status = :pending, manualAttempt = :n, scheduledAttempt = :n, updatedAt = :now, expiresAt = :expires",
        ConditionExpression: "#status <> :pending AND attemptsDone = :done",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":pending": "pending",
          ":n": record.attemptsDone + 1,
          ":done": record.attemptsDone,
          ":now": now.toISOString(),
          ":expires": expiresAt,
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** The delivery log of one endpoint, newest first, without expired items. */
export async function listDeliveries(endpointId: string, now: Date, limit = 50): Promise<DeliveryRecord[]> {
  const out: DeliveryRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await awsClients().ddb.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": `EP#${endpointId}`, ":prefix": "DLV#" },
        ScanIndexForward: false,
        ExclusiveStartKey,
      }),
    );
    out.push(...(page.Items ?? []).map(decode).filter((d) => d.expiresAt > now.getTime() / 1000));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && out.length < limit);
  return out.slice(0, limit);
}

/** The delivery log over the webhooks table (items decoded with `deliveryRecordSchema`). */
export const dynamoDeliveryStore: DeliveryStore = {
  create: createDelivery,
  get: getDelivery,
  find: findDelivery,
  claimAttempt,
  recordAttempt,
  markScheduled,
  reopen: reopenDelivery,
  list: listDeliveries,
};
