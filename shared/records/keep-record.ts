import type { Clock } from "#shared/clock.ts";
import { type KeptRecord, type RecordedFile, sha256Hex } from "./record-chain.ts";
import type { RecordFields } from "./record-fields.ts";
import { recordPdfKey, type RecordPdfs, type RecordStore } from "./record-store.ts";

export type { RecordedFile };

export interface KeepRecordDeps {
  store: RecordStore;
  pdfs: RecordPdfs;
  clock: Clock;
}

/**
 * Keeps one delivered file as a record (README.md#what-a-record-holds): its PDF locked for the workspace's
 * retention, then the record appended to the chain with the SHA-256 of exactly those bytes. Keyed by the
 * file's id: a retried or replayed file answers its first record and appends nothing.
 */
export async function keepRecord(
  deps: KeepRecordDeps,
  file: RecordedFile,
  fields: RecordFields,
  pdf: Buffer,
): Promise<KeptRecord> {
  // Both reads at once: each is a round trip before the answer of a sync request.
  const [existing, years] = await Promise.all([
    deps.store.find(file.workspaceId, file.fileId),
    deps.store.retentionYears(file.workspaceId),
  ]);
  if (existing) return existing;
  const now = deps.clock.now();
  const sha256 = sha256Hex(pdf);
  await deps.pdfs.keep(recordPdfKey({ ...file, recordId: file.fileId, sha256 }), pdf, addYears(now, years));
  return deps.store.append({ ...fields, ...file, recordId: file.fileId, sha256, createdAt: now.toISOString() });
}

/** `years` after `from` (29 February → 28 February when the later year has none, as S3 counts). */
export function addYears(from: Date, years: number): Date {
  const later = new Date(from);
  later.setUTCFullYear(from.getUTCFullYear() + years);
  if (later.getUTCDate() !== from.getUTCDate()) later.setUTCDate(0);
  return later;
}

/** The deployment's stores (the records table and bucket), for the generation paths. */
export async function liveRecordDeps(clock: Clock): Promise<KeepRecordDeps> {
  const [{ dynamoRecordStore }, { s3RecordPdfs }] = await Promise.all([
    import("./dynamo-record-store.ts"),
    import("./s3-record-pdfs.ts"),
  ]);
  return { store: dynamoRecordStore(), pdfs: s3RecordPdfs(), clock };
}
