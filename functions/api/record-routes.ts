import { Readable } from "node:stream";
import { recordAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { contentDisposition, pdfFileName } from "#shared/generation/http/index.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import {
  auditFilters,
  dynamoRecordStore,
  exportRecords,
  parseRecordQuery,
  recordAnswer,
  recordPdfKey,
  recordsCsv,
  s3RecordPdfs,
  searchPage,
  verifyRange,
} from "#shared/records/index.ts";
import { readerOf } from "#shared/records/record-reader.ts";

const store = dynamoRecordStore();
const pdfs = s3RecordPdfs();
const noStore = { "Cache-Control": "no-store" };

/**
 * GET /v1/records, /records/export, /records/verify and /records/{recordId}/pdf (shared/records/README.md#the-api):
 * a workspace's kept records, searched, exported as CSV, verified and downloaded; each read goes to the audit
 * log. Records are never changed through any route.
 */
export const handler = apiHandler({ streaming: true }, async function handleRecords(req): Promise<ApiResult> {
  const workspaceId = req.principal.workspace.id;
  const audit = (action: "records.search" | "records.export" | "records.verify" | "record.download", more = {}) =>
    recordAudit({ workspaceId, actor: readerOf(req.principal), action, ...more }, systemClock);
  const resource = req.event.resource.replace(/^\/v1/, "");
  if (resource === "/records/{recordId}/pdf") {
    const record = await store.find(workspaceId, req.path("recordId"));
    const pdf = record && (await pdfs.read(recordPdfKey(record)));
    if (!record || !pdf) throw new PlatenError("FILE_NOT_FOUND");
    await audit("record.download", { target: record.recordId });
    return {
      status: 200,
      contentType: "application/pdf",
      stream: Readable.from([pdf]),
      contentLength: pdf.length,
      headers: { ...noStore, "Content-Disposition": contentDisposition(pdfFileName(record.fileName)) },
    };
  }
  const query = parseRecordQuery(workspaceId, req.query);
  if (resource === "/records/verify") {
    await audit("records.verify", { detail: auditFilters(query) });
    return { status: 200, headers: noStore, json: await verifyRange({ store, pdfs }, query) };
  }
  if (resource === "/records/export") {
    const lang = req.query("lang") === "en" ? "en" : "ja";
    const rows = await exportRecords(store, query);
    await audit("records.export", { detail: auditFilters(query) });
    return {
      status: 200,
      contentType: "text/csv; charset=utf-8",
      stream: Readable.from(recordsCsv(rows, lang)),
      contentLength: undefined,
      headers: { ...noStore, "Content-Disposition": `attachment; filename="records.csv"` },
    };
  }
  const page = await searchPage(store, query, req.query("cursor"));
  await audit("records.search", { detail: auditFilters(query) });
  return {
    status: 200,
    headers: noStore,
    json: { records: page.records.map(recordAnswer), ...(page.next && { next: page.next }) },
  };
});
