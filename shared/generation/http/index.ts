/**
 * The answers of the generation routes, for handlers: the sync answer (one PDF or a ZIP, `X-File-Mapping`),
 * a request's ZIP (streamed, or stored in S3 and answered with a presigned link), file headers, the
 * `Idempotency-Key` wrapper. A room of its own because the ZIP writer comes with them.
 */
export { presignClientFor, presignGet } from "./archive-link.ts";
export { contentDisposition, pdfFileName } from "./file-headers.ts";
export { checkFileMappingSize, fileMappingMaxBytes } from "./file-mapping-cap.ts";
export { withIdempotencyKey } from "./idempotent.ts";
export { requestArchiveAnswer } from "./request-archive.ts";
export { outputHistoryUrl, syncResponse } from "./sync-response.ts";
