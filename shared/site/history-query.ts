import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { decodeFileItem, type FileRecord, resolveStored } from "#shared/generation/store/index.ts";
import { buildSearchMetadata } from "#shared/render/pdf-postprocess.ts";

/** One request of a workspace's output history, summarised from its file records. */
export interface RequestSummary {
  requestId: string;
  designId: string;
  createdAt: string;
  source: "sync" | "async";
  files: {
    fileId: string;
    fileName: string;
    status: FileRecord["status"];
    passthrough?: Record<string, string | number>;
  }[];
  /** From the files: processing while any is unfinished, failed when all failed, else completed. */
  status: "processing" | "completed" | "failed";
}

export interface HistoryPage {
  requests: RequestSummary[];
  /** Opaque cursor of the next (older) page, when there may be one. */
  next?: string;
  /**
   * A search stopped reading before it filled the page (its read limit or time budget): older matches may
   * follow at `next`.
   */
  partial?: boolean;
}

export const HISTORY_PAGE_SIZE = 20;
/** A search reads at most this many file records per page, so a rare match cannot make a page slow. */
const SEARCH_READ_LIMIT = 2_000;
/** …and reads no more pages of records after this long (ms): the page then says it is partial. */
export const SEARCH_TIME_BUDGET_MS = 3_000;

/** A file record of the index with its table key (the cursor continues after it). */
type StoredItem = FileRecord & { pk: string; sk: string };

/**
 * Where the history reads (the files table's `byWorkspace` index, each item decoded by the file store's
 * schema; fakes in unit tests) and how it matches.
 */
export interface HistoryPorts {
  readPage(
    workspaceId: string,
    start: Record<string, unknown> | undefined,
  ): Promise<{ items: StoredItem[]; lastKey?: Record<string, unknown> }>;
  matches(passthrough: Record<string, unknown> | undefined, query: string): boolean;
  /** Elapsed-time source for the search budget (ms). */
  now(): number;
}

const storedHistoryPorts: HistoryPorts = {
  readPage: async (workspaceId, start) => {
    const out = await awsClients().ddb.send(
      new QueryCommand({
        TableName: config().tables.files,
        IndexName: "byWorkspace",
        KeyConditionExpression: "workspaceId = :w",
        ExpressionAttributeValues: { ":w": workspaceId },
        ScanIndexForward: false,
        Limit: 200,
        ExclusiveStartKey: start,
      }),
    );
    // Each file item is decoded with the file store's schema (the index holds only file records:
    // invitations carry no `createdAt`), keeping its key for the cursor.
    const items = (out.Items ?? []).map((item) => ({
      ...decodeFileItem(item),
      pk: String(item.pk),
      sk: String(item.sk),
    }));
    // A stored sync file's record may still say `storing` (its PDF is the commit): read it as stored.
    return { items: await resolveStored(items), lastKey: out.LastEvaluatedKey };
  },
  matches: (passthrough, query) => matchesSearch(passthrough, query),
  now: () => Date.now(),
};

/**
 * Search metadata (shared/render/README.md#pdf-post-processing-and-rfparams): `key=value` matches a file whose
 * indexed `key` equals `value`; any other text matches a file with an indexed value containing it
 * (case-insensitive).
 */
export function matchesSearch(passthrough: Record<string, unknown> | undefined, query: string): boolean {
  const indexed = new URLSearchParams(buildSearchMetadata(passthrough));
  const q = query.trim();
  if (!q) return true;
  const eq = q.indexOf("=");
  if (eq > 0) return indexed.getAll(q.slice(0, eq).trim()).includes(q.slice(eq + 1).trim());
  const needle = q.toLowerCase();
  return [...indexed.values()].some((v) => v.toLowerCase().includes(needle));
}

function summarise(files: FileRecord[]): RequestSummary {
  const first = files[0]!;
  const sorted = [...files].sort((a, b) => a.index - b.index);
  const unfinished = files.some((f) => f.status === "queued" || f.status === "storing");
  const status = unfinished ? "processing" : files.every((f) => f.status === "failed") ? "failed" : "completed";
  return {
    requestId: first.requestId,
    designId: first.designId,
    createdAt: first.createdAt,
    source: first.source,
    files: sorted.map((f) => ({
      fileId: f.fileId,
      fileName: f.fileName,
      status: f.status,
      ...(f.passthrough && { passthrough: f.passthrough }),
    })),
    status,
  };
}

const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString("base64url");
function decodeCursor(cursor: string | undefined, workspaceId: string): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
    // A cursor only ever continues the same workspace's listing, and only the index's key
    // attributes go back to DynamoDB (anything else in a crafted one would be a 500).
    const { pk, sk, createdAt } = key;
    return key.workspaceId === workspaceId &&
      typeof pk === "string" &&
      typeof sk === "string" &&
      typeof createdAt === "string"
      ? { pk, sk, workspaceId, createdAt }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A workspace's requests, newest first, `pageSize` (default 20) per page (the files table's
 * `byWorkspace` index, grouped by request). Expired files are left out, as every reader does.
 * Linear in the records read: each file is matched at most once (none once its request matched) and
 * the matching requests are counted as they are found. A search stops after SEARCH_READ_LIMIT records
 * or SEARCH_TIME_BUDGET_MS and answers what it found as `partial`, with the cursor to go on.
 */
export async function listOutputHistory(
  workspaceId: string,
  opts: { cursor?: string; search?: string; pageSize?: number; budgetMs?: number },
  clock: Clock,
  ports: HistoryPorts = storedHistoryPorts,
): Promise<HistoryPage> {
  const pageSize = opts.pageSize ?? HISTORY_PAGE_SIZE;
  const search = opts.search?.trim() ? opts.search : undefined;
  const now = Math.floor(clock.now().getTime() / 1000);
  const startedAt = ports.now();
  const budgetMs = opts.budgetMs ?? SEARCH_TIME_BUDGET_MS;
  const groups = new Map<string, FileRecord[]>();
  const matched = new Set<string>();
  const page = () => [...groups].filter(([id]) => !search || matched.has(id)).map(([, files]) => summarise(files));
  let start = decodeCursor(opts.cursor, workspaceId);
  let read = 0;
  let last: Record<string, unknown> | undefined;
  // Without a search a page ends on a request boundary (at most 21 requests of 100 files are read).
  while (!search || (read < SEARCH_READ_LIMIT && ports.now() - startedAt < budgetMs)) {
    const out = await ports.readPage(workspaceId, start);
    for (const item of out.items) {
      read += 1;
      const filled = search ? matched.size : groups.size;
      if (!groups.has(item.requestId) && filled >= pageSize) {
        return { requests: page(), next: last && encodeCursor(last) };
      }
      last = { pk: item.pk, sk: item.sk, workspaceId: item.workspaceId, createdAt: item.createdAt };
      if (item.expiresAt <= now || !item.sk.startsWith("FILE#")) continue;
      const record = toRecord(item);
      const files = groups.get(record.requestId);
      if (files) files.push(record);
      else groups.set(record.requestId, [record]);
      if (search && !matched.has(record.requestId) && ports.matches(record.passthrough, search))
        matched.add(record.requestId);
    }
    start = out.lastKey;
    if (!start) return { requests: page() };
  }
  return { requests: page(), next: last && encodeCursor(last), partial: true };
}

/** The record of a page item, without its key. */
function toRecord(item: StoredItem): FileRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}
