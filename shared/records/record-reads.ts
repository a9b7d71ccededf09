import { type KeptRecord, sha256Hex } from "./record-chain.ts";
import { recordPdfKey, type RecordPdfs, type RecordQuery, type RecordStore } from "./record-store.ts";
import { type VerifyReport, verifyRecords } from "./verify-records.ts";

/** Every record a query matches, in search order, read page by page (an export, a verify). */
export async function* allRecords(store: RecordStore, query: RecordQuery, pageSize = 1000): AsyncGenerator<KeptRecord> {
  let cursor: string | undefined;
  do {
    const page = await store.search(query, { limit: pageSize, ...(cursor && { cursor }) });
    yield* page.records;
    cursor = page.next;
  } while (cursor);
}

/**
 * Verifies a workspace's records of a date range (`GET /v1/records/verify`): every PDF read back and
 * hashed, every record's chain hash and link recomputed (verify-records.ts).
 */
export function verifyRange(
  deps: { store: RecordStore; pdfs: RecordPdfs },
  query: Pick<RecordQuery, "workspaceId" | "dateFrom" | "dateTo">,
): Promise<VerifyReport> {
  return verifyRecords({
    records: allRecords(deps.store, query),
    storedSha256: async (record) => {
      const pdf = await deps.pdfs.read(recordPdfKey(record));
      return pdf && sha256Hex(pdf);
    },
    chainHashAt: (seq) => deps.store.chainHashAt(query.workspaceId, seq),
  });
}
