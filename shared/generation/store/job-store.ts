import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { updateIf } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import { isId } from "#shared/ids.ts";
import * as z from "zod";

export const failedFileSchema = z.object({
  fileId: z.string().optional(),
  fileName: z.string(),
  code: z.string(),
  message: z.string(),
});
export type FailedFile = z.infer<typeof failedFileSchema>;

/**
 * The job record of an async generation (see shared/generation/README.md#request-states-and-retention), kept 24
 * h after it ends.
 */
export const jobRecordSchema = z.object({
  requestId: z.string(),
  workspaceId: z.string(),
  designId: z.string(),
  version: z.number(),
  designLabel: z.string(),
  mode: z.enum(["single", "multiple"]),
  status: z.enum(["processing", "completed", "failed"]),
  total: z.number(),
  /** How many files reached done/failed (the size of `settledFiles`, see `markSettled`). */
  settled: z.number(),
  webhookUrl: z.string().optional(),
  createdAt: z.string(),
  /** UTC month the request's pages were reserved in (shared/limits/README.md#service-limits). */
  usageMonth: z.string().optional(),
  /** The request's page writes went to its shard of the month (shared/limits/page-shards.ts). */
  pagesSpread: z.boolean().optional(),
  /** Its page writes go to its own item of the month (file-store.ts `pagesByRequest`). */
  pagesByRequest: z.boolean().optional(),
  completedAt: z.string().optional(),
  failedFiles: z.array(failedFileSchema).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** When acceptance had queued every render message; a job without it past the acceptance deadline died in acceptance. */
  enqueuedAt: z.string().optional(),
  /**
   * The last sign of life of its rendering beyond `createdAt`: set when a worker counts settled
   * files of it (`markSettled`) or sends one back to the queue (`markRenderAlive`, at most every
   * RENDER_ALIVE_EVERY_SECONDS per message), so the sweeper does not take a long but moving
   * backlog for lost messages.
   */
  renderAliveAt: z.string().optional(),
  /** Set only while processing: the sparse `active` index lists unfinished requests. */
  activeShard: z.string().optional(),
  expiresAt: z.number().optional(),
});
export type JobRecord = z.infer<typeof jobRecordSchema>;

/**
 * A job item as the requests table holds it: the set of settled file ids (`markSettled`) beside the
 * record, whose `settled` is the size of that set (the attribute itself is only the count at acceptance).
 */
const jobItemSchema = jobRecordSchema.extend({
  settled: z.number().optional(),
  settledFiles: z.set(z.string()).optional(),
});

/** A job item read from the requests table, decoded with `jobItemSchema`, and its settled set. */
function decodeJobItem(item: Record<string, unknown>): { job: JobRecord; settledFiles: Set<string> } {
  const { settledFiles, settled, ...job } = decodeStoredItem(jobItemSchema, config().tables.requests, item);
  return { job: { ...job, settled: settledFiles?.size ?? settled ?? 0 }, settledFiles: settledFiles ?? new Set() };
}

const jobKey = (requestId: string) => ({ pk: `REQ#${requestId}`, sk: "JOB" });
const table = () => config().tables.requests;

export async function putJob(job: JobRecord): Promise<void> {
  await awsClients().ddb.send(
    new PutCommand({
      TableName: table(),
      Item: { ...jobKey(job.requestId), ...job },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
}

export async function getJob(requestId: string): Promise<JobRecord | undefined> {
  // From a URL path: one that cannot be an id is not found, not a key DynamoDB refuses.
  if (!isId(requestId)) return undefined;
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: jobKey(requestId), ConsistentRead: true }),
  );
  return out.Item ? decodeJobItem(out.Item).job : undefined;
}

/** Marks the job's render messages as queued (acceptance is complete: see the sweeper). */
export async function markEnqueued(requestId: string, at: string): Promise<void> {
  await awsClients().ddb.send(
    new UpdateCommand({
      TableName: table(),
      Key: jobKey(requestId),
      UpdateExpression: "SET enqueuedAt = :at",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":at": at },
    }),
  );
}

/** How often a deferred file's messages refresh their request's `renderAliveAt` (well inside the sweeper's render deadline). */
export const RENDER_ALIVE_EVERY_SECONDS = 10 * 60;

/** Records that the job's rendering is alive at `at`, unless a later sign is recorded already. */
export async function markRenderAlive(requestId: string, at: string): Promise<void> {
  await updateIf({
    TableName: table(),
    Key: jobKey(requestId),
    UpdateExpression: "SET renderAliveAt = :at",
    ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(renderAliveAt) OR renderAliveAt < :at)",
    ExpressionAttributeValues: { ":at": at },
  });
}

/** A job as `markSettled` left it, and which of the given files that call added. */
export interface SettledCount {
  job: JobRecord;
  added: string[];
}

/**
 * Records files as settled and returns how many are. The job keeps the set of settled
 * file ids (a DynamoDB string set), so adding the same file again — a replayed message,
 * a retry after a crash between settling and counting, the recovery sweep — changes
 * nothing: the count is exact however often it is repeated. `added` names the files
 * this call put into the set: the write is atomic, so exactly one caller adds each file.
 */
export async function markSettled(
  requestId: string,
  fileIds: string[],
  aliveAt?: string,
): Promise<SettledCount | undefined> {
  if (!fileIds.length) {
    const job = await getJob(requestId);
    return job && { job, added: [] };
  }
  const out = await awsClients().ddb.send(
    new UpdateCommand({
      TableName: table(),
      Key: jobKey(requestId),
      // `aliveAt`: a worker settled these files now, a sign of life of the request's rendering
      // (the sweeper's recount passes none); in the same write, so it costs nothing.
      UpdateExpression: aliveAt ? "ADD settledFiles :ids SET renderAliveAt = :at" : "ADD settledFiles :ids",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":ids": new Set(fileIds), ...(aliveAt && { ":at": aliveAt }) },
      // The set before this write tells what it added; the rest of the job is unchanged by it.
      ReturnValues: "ALL_OLD",
    }),
  );
  if (!out.Attributes) return undefined;
  const { job, settledFiles: before } = decodeJobItem(out.Attributes);
  const added = [...new Set(fileIds)].filter((id) => !before.has(id));
  return { job: { ...job, settled: before.size + added.length }, added };
}

/** Files a finalization counts in its own write (`markSettled`'s set and sign of life, for a request ended by them). */
export interface CountedAtEnd {
  fileIds: string[];
  aliveAt?: string;
}

/**
 * Ends a job exactly once: the write only succeeds while the job is still processing,
 * so concurrent or replayed finalizers cannot both win (returns false for the loser).
 * `counted`: the files whose count ends the request, added to `settledFiles` in the same
 * write (a single's one file: its count and the end are one write, not two).
 */
export async function finalizeJob(
  requestId: string,
  outcome: Pick<JobRecord, "status" | "completedAt" | "failedFiles" | "error" | "expiresAt">,
  counted?: CountedAtEnd,
): Promise<boolean> {
  const values: Record<string, unknown> = {
    ":processing": "processing",
    ":status": outcome.status,
    ":completedAt": outcome.completedAt,
    ":expiresAt": outcome.expiresAt,
  };
  const sets = ["#status = :status", "completedAt = :completedAt", "expiresAt = :expiresAt"];
  if (counted?.aliveAt) {
    values[":aliveAt"] = counted.aliveAt;
    sets.push("renderAliveAt = :aliveAt");
  }
  if (counted?.fileIds.length) values[":counted"] = new Set(counted.fileIds);
  if (outcome.failedFiles?.length) {
    values[":failedFiles"] = outcome.failedFiles;
    sets.push("failedFiles = :failedFiles");
  }
  if (outcome.error) {
    values[":error"] = outcome.error;
    sets.push("#error = :error");
  }
  return updateIf({
    TableName: table(),
    Key: jobKey(requestId),
    UpdateExpression: `SET ${sets.join(", ")} REMOVE activeShard${counted?.fileIds.length ? " ADD settledFiles :counted" : ""}`,
    ConditionExpression: "#status = :processing",
    ExpressionAttributeNames: { "#status": "status", ...(outcome.error && { "#error": "error" }) },
    ExpressionAttributeValues: values,
  });
}

/** Unfinished jobs created before `before` (ISO), from the sparse `active` index. */
export async function listActiveJobs(before: string): Promise<JobRecord[]> {
  const items = await queryAll({
    TableName: table(),
    IndexName: "active",
    KeyConditionExpression: "activeShard = :shard AND createdAt < :before",
    ExpressionAttributeValues: { ":shard": ACTIVE_SHARD, ":before": before },
  });
  return items.map((item) => decodeJobItem(item).job);
}

/** One shard is plenty for the number of in-flight requests of this service. */
export const ACTIVE_SHARD = "active";
