/**
 * Kept transaction records (電子取引データ): a design's `record` evaluated per file, each record chained to
 * its workspace's previous one, its PDF kept under a lock, searched, exported and verified (README.md).
 */
export {
  counterpartySearchForm,
  DEFAULT_RECORD_CURRENCY,
  evaluateRecordFields,
  minorUnits,
  recordDate,
  recordExpressionProblem,
  recordFieldsInvalid,
  type RecordFields,
  type RecordScope,
} from "./record-fields.ts";
export {
  canonicalJson,
  chainHashOf,
  chainNext,
  type ChainedFields,
  GENESIS_HASH,
  type KeptRecord,
  sealRecord,
  sha256Hex,
} from "./record-chain.ts";
export { type BrokenReason, type VerifyPorts, type VerifyReport, verifyRecords } from "./verify-records.ts";
export {
  DEFAULT_RETENTION_YEARS,
  keptRecordSchema,
  RecordCursorInvalid,
  recordPdfKey,
  type RecordPage,
  type RecordPdfs,
  type RecordQuery,
  type RecordStore,
  RETENTION_YEARS,
  type RetentionYears,
  type UnchainedRecord,
} from "./record-store.ts";
export { addYears, type KeepRecordDeps, keepRecord, liveRecordDeps, type RecordedFile } from "./keep-record.ts";
export {
  allRecords,
  EXPORT_MAX_ROWS,
  exportRecords,
  SEARCH_PAGE_SIZE,
  searchPage,
  verifyRange,
} from "./record-reads.ts";
export { dynamoRecordStore, RecordInProgress } from "./dynamo-record-store.ts";
export { s3RecordPdfs } from "./s3-record-pdfs.ts";
export { auditFilters, parseRecordQuery, queryText, RECORD_FILTERS } from "./record-query.ts";
export {
  recordAmountText,
  recordAnswer,
  recordAnswerSchema,
  recordDownloadPath,
  recordPageSchema,
  recordsCsv,
  verifyReportSchema,
} from "./record-answers.ts";
export { lengthenRecordRetention, recordRetentionBody } from "./record-retention.ts";
