import { type KeptRecord, sha256Hex } from "./record-chain.ts";
import { badParameter, queryText } from "./record-query.ts";
import {
  RecordCursorInvalid,
  type RecordPage,
  recordPdfKey,
  type RecordPdfs,
  type RecordQuery,
  type RecordStore,
} from "./record-store.ts";
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

/** Records a search page shows (`GET /v1/records`, the site's records page). */
export const SEARCH_PAGE_SIZE = 50;

/**
 * One page of a search as the API and the site answer it.
 * @throws PlatenError VALIDATION_FAILED naming `cursor` for a cursor this store did not make
 */
export async function searchPage(
  store: RecordStore,
  query: RecordQuery,
  cursor: string | undefined,
): Promise<RecordPage> {
  try {
    return await store.search(query, { limit: SEARCH_PAGE_SIZE, ...(cursor && { cursor }) });
  } catch (err) {
    if (err instanceof RecordCursorInvalid) throw badParameter("cursor", queryText.cursor);
    throw err;
  }
}

/** The most rows one export answers; a larger download request is made in parts (by date range). */
export const EXPORT_MAX_ROWS = 100_000;

/**
 * The records an export answers, read lazily as the CSV streams. More than `max` matches are refused before
 * the first row, as 400 VALIDATION_FAILED naming `dateFrom`: a streamed answer cannot turn into an error half
 * way. Only a workspace that has kept more than `max` records at all pays for the count (a pass over the
 * matches that stops past `max`); the rows stop at `max` too, should records be kept in between.
 */
export async function exportRecords(
  store: RecordStore,
  query: RecordQuery,
  max = EXPORT_MAX_ROWS,
): Promise<AsyncGenerator<KeptRecord>> {
  if ((await store.recordCount(query.workspaceId)) > max) {
    let matches = 0;
    for await (const _ of allRecords(store, query)) {
      if (++matches > max) throw badParameter("dateFrom", queryText.exportTooLarge);
    }
  }
  return (async function* () {
    let rows = 0;
    for await (const record of allRecords(store, query)) {
      if (++rows > max) return;
      yield record;
    }
  })();
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
