/**
 * Where a request lives: file records and PDFs (file-store.ts), job records (job-store.ts), async params
 * (params-store.ts), sealed protection (protection-seal.ts), and the ports the request rules read and write
 * through with their DynamoDB/SQS wiring (request-ports.ts, request-adapters.ts).
 */
export {
  decodeFileItem,
  deleteFileRecords,
  deletePdf,
  einvoiceSizes,
  type FileRecord,
  getFileRecord,
  getFileRecords,
  getPdf,
  isFinal,
  listFileRecords,
  listWorkspaceFiles,
  type Outcome,
  openEinvoiceXml,
  openPdf,
  pdfObjectKey,
  pdfSize,
  putEinvoiceXml,
  putFileRecords,
  putPdf,
  releaseCount,
  resolveStored,
  settleFileRecord,
  takeOverCount,
} from "./file-store.ts";
export { inTurns } from "./in-turns.ts";
export {
  ACTIVE_SHARD,
  type CountedAtEnd,
  type FailedFile,
  finalizeJob,
  getJob,
  type JobRecord,
  listActiveJobs,
  markEnqueued,
  markRenderAlive,
  markSettled,
  putJob,
  RENDER_ALIVE_EVERY_SECONDS,
} from "./job-store.ts";
export { deleteParams, getParams, INLINE_PARAMS_BYTES, paramsObjectKey, putParams } from "./params-store.ts";
export { openProtection, sealProtection } from "./protection-seal.ts";
export { liveRequestDeps, storedRequestDeps } from "./request-adapters.ts";
export type {
  DesignLabels,
  DownloadDeps,
  EventOutbox,
  FinalizeDeps,
  ReadDeps,
  RequestDeps,
  RequestStore,
} from "./request-ports.ts";
export { JOB_RETENTION_MS } from "./retention.ts";
