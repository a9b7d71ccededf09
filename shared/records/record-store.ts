import * as z from "zod";
import { RECORD_TYPES } from "#shared/designs/bundle-schema.ts";
import type { KeptRecord } from "./record-chain.ts";

/** A stored record's shape, the truth its store decodes items with (README.md#what-a-record-holds). */
export const keptRecordSchema = z.object({
  recordId: z.string(),
  workspaceId: z.string(),
  type: z.enum(RECORD_TYPES),
  date: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  counterparty: z.string(),
  counterpartySearch: z.string(),
  number: z.string().optional(),
  registrationNumber: z.string().optional(),
  designId: z.string(),
  version: z.number().int(),
  requestId: z.string(),
  fileId: z.string(),
  fileName: z.string(),
  sha256: z.string(),
  createdAt: z.string(),
  seq: z.number().int().min(1),
  prevHash: z.string(),
  chainHash: z.string(),
});

/** A search of one workspace's records: every given condition applies; ranges are inclusive. */
export interface RecordQuery {
  workspaceId: string;
  type?: KeptRecord["type"];
  dateFrom?: string;
  dateTo?: string;
  /** Minor units of the record's currency. */
  amountMin?: number;
  amountMax?: number;
  currency?: string;
  /** A part of the counterparty's search form (compared after `counterpartySearchForm`). */
  counterparty?: string;
  number?: string;
}

/** One page of a search, sorted by date then number; `next` continues it. */
export interface RecordPage {
  records: KeptRecord[];
  next?: string;
}

/** A record's fields before it takes its place in the chain. */
export type UnchainedRecord = Omit<KeptRecord, "seq" | "prevHash" | "chainHash">;

/**
 * Where records live (the DynamoDB adapter: dynamo-record-store.ts; tests may pass another). Records are
 * only ever appended: no method changes or removes one.
 */
export interface RecordStore {
  /**
   * Appends a record to its workspace's chain, once per `recordId`: a second call for the same id (a
   * retried or duplicated file) answers the record made first and appends nothing.
   */
  append(record: UnchainedRecord): Promise<KeptRecord>;
  find(workspaceId: string, recordId: string): Promise<KeptRecord | undefined>;
  /** At most `limit` matches from `cursor` on. @throws RecordCursorInvalid for a cursor this store did not make */
  search(query: RecordQuery, options: { cursor?: string; limit: number }): Promise<RecordPage>;
  /** How many records a workspace has kept: its chain's length (records are never removed). */
  recordCount(workspaceId: string): Promise<number>;
  /** The chain hash stored on record number `seq` of a workspace. */
  chainHashAt(workspaceId: string, seq: number): Promise<string | undefined>;
  /** Records kept for this many years from their creation (a workspace setting, 7 or 10). */
  retentionYears(workspaceId: string): Promise<RetentionYears>;
  /** Lengthens the retention; a shorter one is refused (false). */
  lengthenRetention(workspaceId: string, years: RetentionYears): Promise<boolean>;
}

export const RETENTION_YEARS = [7, 10] as const;
export type RetentionYears = (typeof RETENTION_YEARS)[number];
export const DEFAULT_RETENTION_YEARS: RetentionYears = 7;

/** Where the kept PDFs live, under a lock that refuses changes until their retention ends. */
export interface RecordPdfs {
  /** Stores the PDF locked until `retainUntil`; an object already there with the same bytes is kept. */
  keep(key: string, pdf: Buffer, retainUntil: Date): Promise<void>;
  /** The bytes as stored now; undefined when the object is gone. */
  read(key: string): Promise<Buffer | undefined>;
}

/**
 * The key of a record's PDF: under its workspace, named by its content's hash, so a retry that rendered
 * other bytes never needs to overwrite a locked object (the record names the one it hashed).
 */
export const recordPdfKey = (r: Pick<KeptRecord, "workspaceId" | "recordId" | "sha256">): string =>
  `records/${r.workspaceId}/${r.recordId}/${r.sha256}.pdf`;

/** The records' search cursor is not one this service made: 400 VALIDATION_FAILED naming `cursor`. */
export class RecordCursorInvalid extends Error {
  constructor() {
    super("the cursor is not valid");
    this.name = "RecordCursorInvalid";
  }
}
