import { BatchGetCommand, BatchWriteCommand, GetCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients, s3 } from "#shared/aws/clients.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { updateIf } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import { isId } from "#shared/ids.ts";
import { shareTypes } from "#shared/share-link.ts";
import * as z from "zod";
import { fileSignatureSchema } from "#shared/signing/file-signature.ts";
import { logger } from "#shared/observability/logger.ts";
import { inTurns } from "./in-turns.ts";

/** passthrough values (OpenAPI generateSyncSingle): strings and finite numbers by name. */
const passthroughSchema = z.record(z.string(), z.union([z.string(), z.number()]));

/**
 * An async file's `metadata` as stored: the Info entries' shape, not the request rules of
 * `pdfMetadataSchema` (lengths), which held when the file was accepted.
 */
const storedMetadataSchema = z.object({
  title: z.string().optional(),
  author: z.string().optional(),
  subject: z.string().optional(),
  keywords: z.array(z.string()).optional(),
});

/** One generated (or to-be-generated) file. Kept for the workspace's file retention. */
export const fileRecordSchema = z.object({
  requestId: z.string(),
  fileId: z.string(),
  workspaceId: z.string(),
  designId: z.string(),
  version: z.number(),
  fileName: z.string(),
  /** Position in the request's contents (ZIP and status order). */
  index: z.number(),
  /**
   * `storing`: a sync file already answered whose PDF is being stored (sync-generation.ts).
   * `counting`: an async file rendered (or failed) whose pages are being counted; its
   * outcome waits in `pendingStatus` and the outcome fields (settle-file.ts).
   */
  status: z.enum(["queued", "storing", "counting", "done", "failed"]),
  pendingStatus: z.enum(["done", "failed"]).optional(),
  /**
   * When the delivery that moved the file to `counting` claimed it (service clock, ISO). Only that
   * delivery counts the file while the claim is younger than COUNT_TAKEOVER_SECONDS; anyone else
   * takes the count over first (`takeOverCount`), see settle-file.ts.
   */
  countingAt: z.string().optional(),
  source: z.enum(["sync", "async"]),
  mode: z.enum(["single", "multiple"]),
  shareType: z.enum(Object.values(shareTypes)),
  passcodeHash: z.string().optional(),
  passthrough: passthroughSchema.optional(),
  /** Params of an async file when small (≤ INLINE_PARAMS_BYTES); larger ones live in S3. */
  paramsJson: z.string().optional(),
  /** An async file's `protection`, sealed for its worker (protection-seal.ts); removed once rendered. */
  sealedProtection: z.string().optional(),
  /** An async file's `metadata` (Info entries over the design's), for its worker. */
  metadata: storedMetadataSchema.optional(),
  pageCount: z.number().optional(),
  /** A signed file's signature (design.json `signature`): who signed it, when, at which level. */
  signature: fileSignatureSchema.optional(),
  /** Size of the stored PDF (Content-Length and ZIP layout without another S3 call). */
  bytes: z.number().optional(),
  s3Key: z.string().optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
  createdAt: z.string(),
  completedAt: z.string().optional(),
  /** Epoch seconds: a file still `storing` after this was interrupted (see when-stored.ts). */
  storeBy: z.number().optional(),
  /** Async: the UTC month its pages were reserved in (the page correction goes there). */
  usageMonth: z.string().optional(),
  /** Async on a stopping plan: the month's page limit when the request was accepted. */
  pageLimit: z.number().optional(),
  /** The request's page writes went to its shard of the month (the earlier layout, shared/limits/page-shards.ts). */
  pagesSpread: z.boolean().optional(),
  /** The request's page writes go to its own item of the month (shared/limits/page-shards.ts). */
  pagesByRequest: z.boolean().optional(),
  /** Epoch seconds; DynamoDB TTL deletes late, so readers filter on it too. */
  expiresAt: z.number(),
});
export type FileRecord = z.infer<typeof fileRecordSchema>;

/**
 * A file item as the files table holds it: `passthrough` as its JSON text (`toItem`), read back
 * into the record. Text that is not JSON of the passthrough's shape does not decode.
 */
const fileItemSchema = fileRecordSchema
  .omit({ passthrough: true })
  .extend({
    passthroughJson: z
      .string()
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: "custom", message: "not JSON" });
          return z.NEVER;
        }
      })
      .pipe(passthroughSchema)
      .optional(),
  })
  .transform(
    ({ passthroughJson, ...record }): FileRecord => ({
      ...record,
      ...(passthroughJson && { passthrough: passthroughJson }),
    }),
  );

/**
 * What rendering a queued file came to: the fields its settle writes (settle/settle-file.ts). Here, beside the
 * record, because acceptance, the worker, fair rendering, settling and the sweeper all name it.
 */
export type Outcome = Pick<FileRecord, "pageCount" | "bytes" | "s3Key" | "errorCode" | "errorMessage" | "signature"> & {
  status: "done" | "failed";
};

const fileKey = (requestId: string, fileId: string) => ({ pk: `REQ#${requestId}`, sk: `FILE#${fileId}` });

/** Exponential pause before retrying what a batch call left unprocessed. */
const backOff = (attempt: number) => new Promise((r) => setTimeout(r, 50 * 2 ** Math.min(attempt, 5)));

/**
 * passthrough numbers may be any finite JSON number (OpenAPI generateSyncSingle), beyond what DynamoDB's
 * number type holds (38 digits, 1e-130…1e126), so it is stored as its JSON text.
 */
function toItem(r: FileRecord): Record<string, unknown> {
  const { passthrough, ...rest } = r;
  return {
    ...fileKey(r.requestId, r.fileId),
    ...rest,
    ...(passthrough && { passthroughJson: JSON.stringify(passthrough) }),
  };
}

/** A file item read from the files table, decoded with its schema (keys left out, passthrough parsed). */
export function decodeFileItem(item: Record<string, unknown>): FileRecord {
  return decodeStoredItem(fileItemSchema, config().tables.files, item);
}
const fromItem = decodeFileItem;

export const pdfObjectKey = (workspaceId: string, requestId: string, fileId: string) =>
  `files/${workspaceId}/${requestId}/${fileId}.pdf`;

/** What a sync file's PDF object says of its file: written with it, it is the file's commit (`resolveStored`). */
export interface StoredPdf {
  pageCount: number;
  completedAt: string;
}

/** S3 user metadata keys of a `StoredPdf` (sent and read back as `x-amz-meta-…`). */
const PAGES_META = "page-count";
const COMPLETED_META = "completed-at";

/** Stores a PDF; `stored` commits a sync file with it (its record stays as written ahead, see `resolveStored`). */
export async function putPdf(key: string, pdf: Buffer, stored?: StoredPdf): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(
    new sdk.PutObjectCommand({
      Bucket: config().buckets.files,
      Key: key,
      Body: pdf,
      ContentType: "application/pdf",
      ...(stored && {
        Metadata: { [PAGES_META]: String(stored.pageCount), [COMPLETED_META]: stored.completedAt },
      }),
    }),
  );
}

/** The commit of a sync file's PDF, or undefined while (or if never) it is stored. */
async function storedPdf(key: string): Promise<(StoredPdf & { bytes: number }) | undefined> {
  try {
    const { client, sdk } = await s3();
    const out = await client.send(new sdk.HeadObjectCommand({ Bucket: config().buckets.files, Key: key }));
    const pageCount = Number(out.Metadata?.[PAGES_META]);
    const completedAt = out.Metadata?.[COMPLETED_META];
    if (!Number.isInteger(pageCount) || !completedAt) return undefined;
    return { pageCount, completedAt, bytes: Number(out.ContentLength ?? 0) };
  } catch (err) {
    if (isMissingObject(err)) return undefined;
    throw err;
  }
}

/** How many PDF objects `resolveStored` looks at side by side. */
const PARALLEL_HEADS = 8;

/**
 * Sync files are committed by their PDF: the store writes each object with the file's page count and
 * completion time, and does not update the record written ahead as `storing` (one write less per
 * sync document; most are never read again, the client has the PDF). So a `storing` record whose
 * object exists is `done`: records read through here say so, and the first read writes `done` into the
 * record (conditional on `storing`; a failed write only leaves it to the next reader; `record: false`
 * for a reader that may not write the files table). A `storing` record without its object is returned
 * as it is (when-stored.ts waits for it, or reads it as interrupted).
 */
export async function resolveStored<T extends FileRecord>(records: T[], opts: { record?: boolean } = {}): Promise<T[]> {
  const storing = records.flatMap((r, i) => (r.status === "storing" && r.s3Key ? [i] : []));
  if (!storing.length) return records;
  const out = [...records];
  await inTurns(storing, PARALLEL_HEADS, async (i) => {
    const found = await storedPdf(records[i]!.s3Key!);
    if (!found) return;
    const { storeBy: _storeBy, ...record } = records[i]!;
    out[i] = { ...record, status: "done", ...found } as T;
    if (opts.record === false) return;
    await markStored(records[i]!, found).catch((error: unknown) =>
      logger.warn("stored sync file not marked done (the next read does it)", {
        requestId: records[i]!.requestId,
        fileId: records[i]!.fileId,
        error: String(error),
      }),
    );
  });
  return out;
}

async function markStored(r: FileRecord, found: StoredPdf & { bytes: number }): Promise<void> {
  await updateIf({
    TableName: config().tables.files,
    Key: fileKey(r.requestId, r.fileId),
    UpdateExpression: "SET #status = :done, pageCount = :pages, bytes = :bytes, completedAt = :at REMOVE storeBy",
    ConditionExpression: "#status = :storing",
    ExpressionAttributeNames: { "#status": "status" },
    ExpressionAttributeValues: {
      ":done": "done",
      ":storing": "storing",
      ":pages": found.pageCount,
      ":bytes": found.bytes,
      ":at": found.completedAt,
    },
  });
}

/** The stored PDF as a stream and its size, so downloads never hold a whole file set in memory. */
export async function openPdf(key: string): Promise<{ stream: AsyncIterable<Uint8Array>; bytes: number }> {
  const { client, sdk } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: config().buckets.files, Key: key }));
  return { stream: out.Body as unknown as AsyncIterable<Uint8Array>, bytes: Number(out.ContentLength ?? 0) };
}

/**
 * The e-invoice XML of a file (shared/einvoice/README.md), beside its PDF: same prefix, so the same
 * retention removes both. Written before the PDF, whose object is a sync file's commit: a file whose
 * PDF is there has its XML too.
 */
export const einvoiceObjectKey = (pdfKey: string) => pdfKey.replace(/\.pdf$/, ".xml");

export async function putEinvoiceXml(pdfKey: string, xml: Buffer): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(
    new sdk.PutObjectCommand({
      Bucket: config().buckets.files,
      Key: einvoiceObjectKey(pdfKey),
      Body: xml,
      ContentType: "application/xml",
    }),
  );
}

/** A file's e-invoice XML, or undefined for a file whose design writes none. */
export async function openEinvoiceXml(
  pdfKey: string,
): Promise<{ stream: AsyncIterable<Uint8Array>; bytes: number } | undefined> {
  try {
    return await openPdf(einvoiceObjectKey(pdfKey));
  } catch (err) {
    if (isMissingObject(err)) return undefined;
    throw err;
  }
}

/** The sizes of the e-invoice XMLs of a request's files, by PDF key: one listing for a whole ZIP. */
export async function einvoiceSizes(workspaceId: string, requestId: string): Promise<Map<string, number>> {
  const prefix = `files/${workspaceId}/${requestId}/`;
  const sizes = new Map<string, number>();
  let token: string | undefined;
  do {
    const { client, sdk } = await s3();
    const page = await client.send(
      new sdk.ListObjectsV2Command({ Bucket: config().buckets.files, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) {
      if (object.Key?.endsWith(".xml")) sizes.set(object.Key.replace(/\.xml$/, ".pdf"), Number(object.Size ?? 0));
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return sizes;
}

const isMissingObject = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
};

/** Size of a stored PDF (for records written before `bytes` was kept). */
export async function pdfSize(key: string): Promise<number> {
  const { client, sdk } = await s3();
  const out = await client.send(new sdk.HeadObjectCommand({ Bucket: config().buckets.files, Key: key }));
  return Number(out.ContentLength ?? 0);
}

/** Removes a PDF that will not be delivered (its file failed after rendering), and its e-invoice XML if any. */
export async function deletePdf(key: string): Promise<void> {
  const bucket = config().buckets.files;
  const { client, sdk } = await s3();
  await Promise.all(
    [key, einvoiceObjectKey(key)].map((k) => client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: k }))),
  );
}

export async function getPdf(key: string): Promise<Buffer> {
  const { client, sdk } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: config().buckets.files, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** Writes file records 25 at a time (BatchWrite, batches in parallel), retrying what DynamoDB leaves unprocessed. */
export async function putFileRecords(records: FileRecord[]): Promise<void> {
  await writeInBatches(records.map((r) => ({ PutRequest: { Item: toItem(r) } })));
}

/** Removes file records (a sync request that failed after writing them ahead). */
export async function deleteFileRecords(records: Pick<FileRecord, "requestId" | "fileId">[]): Promise<void> {
  await writeInBatches(records.map((r) => ({ DeleteRequest: { Key: fileKey(r.requestId, r.fileId) } })));
}

type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, unknown> } };

async function writeInBatches(requests: WriteRequest[]): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += 25) batches.push(requests.slice(i, i + 25));
  await Promise.all(batches.map(writeBatch));
}

async function writeBatch(batch: WriteRequest[]): Promise<void> {
  const TableName = config().tables.files;
  let requests = batch;
  for (let attempt = 0; requests.length; attempt++) {
    const out = await awsClients().ddb.send(new BatchWriteCommand({ RequestItems: { [TableName]: requests } }));
    requests = (out.UnprocessedItems?.[TableName] ?? []) as typeof requests;
    if (requests.length) await backOff(attempt);
  }
}

/**
 * One file record, or undefined (consistent: workers read right after acceptance); a sync file
 * whose PDF is stored reads `done` (`resolveStored`).
 */
export async function getFileRecord(requestId: string, fileId: string): Promise<FileRecord | undefined> {
  // Ids come from URL paths: one that cannot be an id is not found, not a key DynamoDB refuses (a
  // sort key over 1,024 bytes was a 500 on the download route).
  if (!isId(requestId) || !isId(fileId)) return undefined;
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: config().tables.files, Key: fileKey(requestId, fileId), ConsistentRead: true }),
  );
  return out.Item ? (await resolveStored([fromItem(out.Item)]))[0] : undefined;
}

/**
 * The file records of `keys` that exist, read 100 at a time (BatchGet, consistent like
 * `getFileRecord`), retrying what DynamoDB leaves unprocessed. A key given twice is read once.
 */
export async function getFileRecords(keys: Pick<FileRecord, "requestId" | "fileId">[]): Promise<FileRecord[]> {
  const unique = [...new Map(keys.map((k) => [`${k.requestId}/${k.fileId}`, fileKey(k.requestId, k.fileId)])).values()];
  const batches: (typeof unique)[] = [];
  for (let i = 0; i < unique.length; i += 100) batches.push(unique.slice(i, i + 100));
  return (await Promise.all(batches.map(readBatch))).flat();
}

async function readBatch(keys: Record<string, unknown>[]): Promise<FileRecord[]> {
  const TableName = config().tables.files;
  const items: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length; attempt++) {
    const out = await awsClients().ddb.send(
      new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending, ConsistentRead: true } } }),
    );
    items.push(...(out.Responses?.[TableName] ?? []));
    pending = out.UnprocessedKeys?.[TableName]?.Keys ?? [];
    if (pending.length) await backOff(attempt);
  }
  return items.map(fromItem);
}

/**
 * Moves a file from `from` to its outcome exactly once: the condition makes a duplicate
 * or replayed message a no-op (returns false) instead of a second transition. Moving a
 * queued file to `counting` keeps the outcome's status in `pendingStatus`.
 */
export async function settleFileRecord(
  requestId: string,
  fileId: string,
  outcome: Pick<
    FileRecord,
    | "status"
    | "pageCount"
    | "bytes"
    | "s3Key"
    | "errorCode"
    | "errorMessage"
    | "signature"
    | "completedAt"
    | "pendingStatus"
    | "countingAt"
  >,
  from: "queued" | "counting" = "queued",
): Promise<boolean> {
  const names: Record<string, string> = { "#status": "status" };
  const values: Record<string, unknown> = { ":from": from };
  const sets: string[] = [];
  for (const [key, value] of Object.entries(outcome)) {
    if (value === undefined) continue;
    names[`#${key}`] = key;
    values[`:${key}`] = value;
    sets.push(`#${key} = :${key}`);
  }
  return updateIf({
    TableName: config().tables.files,
    Key: fileKey(requestId, fileId),
    // The params and the sealed protection are not needed once the file is rendered: keep the
    // record lean, and the passwords (even sealed) no longer than the render.
    UpdateExpression: `SET ${sets.join(", ")} REMOVE paramsJson, sealedProtection${outcome.status === "counting" ? "" : ", pendingStatus, countingAt"}`,
    ConditionExpression: "#status = :from",
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/**
 * Every file record of a workspace created in [from, to) (ISO times; the files table's `byWorkspace`
 * index), sync files whose PDFs are stored read `done` (`resolveStored`, not written back). Expired
 * records still present are included: the caller decides (usage reconciliation counts them).
 */
export async function listWorkspaceFiles(workspaceId: string, from: string, to: string): Promise<FileRecord[]> {
  const items = await queryAll({
    TableName: config().tables.files,
    IndexName: "byWorkspace",
    KeyConditionExpression: "workspaceId = :w AND createdAt BETWEEN :from AND :to",
    ExpressionAttributeValues: { ":w": workspaceId, ":from": from, ":to": to },
  });
  // BETWEEN is inclusive: a file created at exactly `to` belongs to the next range.
  return resolveStored(items.filter((i) => i.createdAt !== to && String(i.sk).startsWith("FILE#")).map(fromItem), {
    record: false,
  });
}

/** A claim's time that any finisher may take over at once (a claimer that gave up its count). */
export const RELEASED_CLAIM = new Date(0).toISOString();

/**
 * Takes over the count of a file in `counting` as `file` shows it: one conditional write that
 * moves its claim's time from what this reader saw to `at`. True for exactly one of any
 * finishers that read the same claim; false when the file is no longer in that claim (settled,
 * or taken over by another finisher first), and the caller must not count it.
 */
export async function takeOverCount(file: Pick<FileRecord, "requestId" | "fileId" | "countingAt">, at: string) {
  return updateIf({
    TableName: config().tables.files,
    Key: fileKey(file.requestId, file.fileId),
    UpdateExpression: "SET countingAt = :at",
    // Records claimed before claims had a time carry none: the first taker gives them one.
    ConditionExpression: `#status = :counting AND ${file.countingAt === undefined ? "attribute_not_exists(countingAt)" : "countingAt = :seen"}`,
    ExpressionAttributeNames: { "#status": "status" },
    ExpressionAttributeValues: {
      ":at": at,
      ":counting": "counting",
      ...(file.countingAt !== undefined && { ":seen": file.countingAt }),
    },
  });
}

/**
 * Gives up a claim whose count failed (the claimer writes nothing more for the file), so that the
 * next finisher may take it over at once instead of after COUNT_TAKEOVER_SECONDS. A no-op when
 * the file was settled meanwhile.
 */
export async function releaseCount(file: Pick<FileRecord, "requestId" | "fileId">, countingAt: string) {
  return updateIf({
    TableName: config().tables.files,
    Key: fileKey(file.requestId, file.fileId),
    UpdateExpression: "SET countingAt = :released",
    ConditionExpression: "#status = :counting AND countingAt = :mine",
    ExpressionAttributeNames: { "#status": "status" },
    ExpressionAttributeValues: { ":released": RELEASED_CLAIM, ":counting": "counting", ":mine": countingAt },
  });
}

/** A file that reached its outcome (done or failed), not one still being rendered, counted or stored. */
export const isFinal = (f: Pick<FileRecord, "status">) => f.status === "done" || f.status === "failed";

/**
 * Every file record of a request (consistent read: a request's files are read right after writing);
 * sync files whose PDFs are stored read `done` (`resolveStored`).
 */
export async function listFileRecords(requestId: string, opts: { record?: boolean } = {}): Promise<FileRecord[]> {
  const items = await queryAll({
    TableName: config().tables.files,
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: { ":pk": `REQ#${requestId}`, ":prefix": "FILE#" },
    ConsistentRead: true,
  });
  return resolveStored(
    items.map(fromItem).sort((a, b) => a.index - b.index),
    opts,
  );
}
