import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed, updateIf } from "#shared/aws/conditional-update.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import { functions } from "#shared/definitions/functions.ts";
import { mayBeId } from "#shared/ids.ts";
import { type KeptRecord, sealRecord } from "./record-chain.ts";
import { decodeRecord, pk, recordItem, seqKey, TABLE, table } from "./record-keys.ts";
import { searchRecords } from "./dynamo-record-search.ts";
import {
  DEFAULT_RETENTION_YEARS,
  RETENTION_YEARS,
  type RecordStore,
  type RetentionYears,
  type UnchainedRecord,
} from "./record-store.ts";

/*
 * The records table (README.md#key-design), one partition per workspace `WS#<workspaceId>`:
 * - `SEQ#<seq, 12 digits>`: a record, at its place in the chain. Taking the next place is one conditional
 *   put, so two records made at once never share a place (the chain never forks); the loser reads the new
 *   head and tries again. `dateKey` `<date>#<number>#<seq counted down>` puts it in the `byDate` index.
 * - `FILE#<recordId>`: the file's claim, taken before its place: one record per file, whatever is retried.
 * - `SETTINGS`: the workspace's record retention in years.
 */

/**
 * A claim nobody placed within this many seconds may be taken over: longer than any function may run
 * (shared/definitions/functions.ts), so whoever claimed the file is gone by then and can no longer place a
 * record after the taker; the taker finds a place its claimer took before dying (`placedSince`).
 */
const CLAIM_TAKEOVER_SECONDS = Math.max(...Object.values(functions).map((f) => f.timeoutSeconds)) + 60;
/** How long a duplicate waits for the delivery that claimed the file first before it gives up (transient). */
const CLAIM_WAIT_MS = 5000;
/** Places tried before giving up: each lost race means another record was appended meanwhile. */
const MAX_APPEND_ATTEMPTS = 50;

const claimSchema = z.object({ claimedAt: z.string(), seq: z.number().int().optional() });
const settingsSchema = z.object({ retentionYears: z.union([z.literal(7), z.literal(10)]) });

/** Another delivery of the same file is appending its record right now: a transient error (retried). */
export class RecordInProgress extends Error {
  constructor(recordId: string) {
    super(`the record of file ${recordId} is being appended by another delivery`);
    this.name = "RecordInProgress";
  }
}

/** The DynamoDB adapter of RecordStore. */
export function dynamoRecordStore(): RecordStore {
  return {
    append,
    find: async (workspaceId, recordId) => {
      // The id comes from a URL path: one that cannot be an id is no record, not a key DynamoDB refuses (500).
      if (!mayBeId(recordId)) return undefined;
      const claim = await readClaim(workspaceId, recordId);
      return claim?.seq === undefined ? undefined : recordAt(workspaceId, claim.seq);
    },
    search: searchRecords,
    recordCount: async (workspaceId) => (await newestRecords(workspaceId, 1))[0]?.seq ?? 0,
    chainHashAt: async (workspaceId, seq) => (await recordAt(workspaceId, seq))?.chainHash,
    retentionYears,
    lengthenRetention: (workspaceId, years) =>
      updateIf({
        TableName: table(),
        Key: { pk: pk(workspaceId), sk: "SETTINGS" },
        UpdateExpression: "SET retentionYears = :y",
        ConditionExpression: "attribute_not_exists(retentionYears) OR retentionYears <= :y",
        ExpressionAttributeValues: { ":y": years },
      }),
  };
}

async function append(record: UnchainedRecord): Promise<KeptRecord> {
  const { workspaceId, recordId } = record;
  // The head is read while the claim is taken (one round trip less before a sync answer): a place is only
  // ever taken after the claim, and a head that moved in between loses the conditional put and is read again.
  const [claim, [head]] = await Promise.all([
    claimFile(workspaceId, recordId, record.createdAt),
    newestRecords(workspaceId, 1),
  ]);
  if (claim.seq !== undefined) return (await recordAt(workspaceId, claim.seq))!;
  // A claim taken over from a delivery that died may already have its place: never a second one.
  const placed = claim.since ? await placedSince(workspaceId, recordId, claim.since) : undefined;
  const sealed = placed ?? (await takeNextPlace(record, head));
  await awsClients().ddb.send(
    new UpdateCommand({
      TableName: table(),
      Key: { pk: pk(workspaceId), sk: `FILE#${recordId}` },
      UpdateExpression: "SET seq = :seq",
      ExpressionAttributeValues: { ":seq": sealed.seq },
    }),
  );
  return sealed;
}

/** The file's claim: new (no `seq`), taken over from a dead delivery (`since`: its time), or one already placed. */
async function claimFile(
  workspaceId: string,
  recordId: string,
  now: string,
): Promise<{ seq?: number; since?: string }> {
  const Key = { pk: pk(workspaceId), sk: `FILE#${recordId}` };
  try {
    await awsClients().ddb.send(
      new PutCommand({
        TableName: table(),
        Item: { ...Key, claimedAt: now },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
    return {};
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
  const stale = (c: { claimedAt: string }) => Date.parse(c.claimedAt) < Date.parse(now) - CLAIM_TAKEOVER_SECONDS * 1000;
  const claim = await placedClaim(workspaceId, recordId, stale);
  if (!claim) throw new RecordInProgress(recordId);
  if (claim.seq !== undefined) return claim;
  const taken =
    stale(claim) &&
    (await updateIf({
      TableName: table(),
      Key,
      UpdateExpression: "SET claimedAt = :now",
      ConditionExpression: "claimedAt = :then AND attribute_not_exists(seq)",
      ExpressionAttributeValues: { ":now": now, ":then": claim.claimedAt },
    }));
  if (!taken) throw new RecordInProgress(recordId);
  return { since: claim.claimedAt };
}

/**
 * Another delivery's claim, waited on for a few seconds (a live one places its record within milliseconds),
 * not at all when it is stale (its delivery is gone).
 */
async function placedClaim(workspaceId: string, recordId: string, stale: (claim: { claimedAt: string }) => boolean) {
  const until = Date.now() + CLAIM_WAIT_MS;
  for (;;) {
    const claim = await readClaim(workspaceId, recordId);
    if (!claim || claim.seq !== undefined || stale(claim) || Date.now() > until) return claim;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readClaim(workspaceId: string, recordId: string) {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: { pk: pk(workspaceId), sk: `FILE#${recordId}` }, ConsistentRead: true }),
  );
  return out.Item && decodeStoredItem(claimSchema, TABLE, out.Item);
}

/**
 * The next place of the chain, taken by one conditional put after `readHead` (the head read with the claim);
 * a lost race reads the new head and tries again.
 */
async function takeNextPlace(record: UnchainedRecord, readHead: KeptRecord | undefined): Promise<KeptRecord> {
  let head = readHead;
  for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
    if (attempt > 0) [head] = await newestRecords(record.workspaceId, 1);
    const sealed = sealRecord(record, head);
    try {
      await awsClients().ddb.send(
        new PutCommand({
          TableName: table(),
          Item: recordItem(sealed),
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return sealed;
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * (attempt + 1)));
    }
  }
  throw new RecordInProgress(record.recordId);
}

/** The newest records of a workspace, by place, newest first (consistent: the head is exact). */
async function newestRecords(
  workspaceId: string,
  limit: number,
  ExclusiveStartKey?: Record<string, unknown>,
): Promise<KeptRecord[] & { next?: Record<string, unknown> }> {
  const out = await awsClients().ddb.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :seq)",
      ExpressionAttributeValues: { ":pk": pk(workspaceId), ":seq": "SEQ#" },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey,
    }),
  );
  const records: KeptRecord[] & { next?: Record<string, unknown> } = (out.Items ?? []).map(decodeRecord);
  records.next = out.LastEvaluatedKey;
  return records;
}

/** The place a dead delivery took for this file after its claim, if it got that far. */
async function placedSince(workspaceId: string, recordId: string, since: string): Promise<KeptRecord | undefined> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await newestRecords(workspaceId, 100, start);
    for (const r of page) {
      if (r.recordId === recordId) return r;
      if (r.createdAt < since) return undefined;
    }
    start = page.next;
  } while (start);
  return undefined;
}

async function recordAt(workspaceId: string, seq: number): Promise<KeptRecord | undefined> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: { pk: pk(workspaceId), sk: seqKey(seq) }, ConsistentRead: true }),
  );
  return out.Item && decodeRecord(out.Item);
}

async function retentionYears(workspaceId: string): Promise<RetentionYears> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: { pk: pk(workspaceId), sk: "SETTINGS" } }),
  );
  const years = out.Item && decodeStoredItem(settingsSchema, TABLE, out.Item).retentionYears;
  return RETENTION_YEARS.find((y) => y === years) ?? DEFAULT_RETENTION_YEARS;
}

export { recordItem };
