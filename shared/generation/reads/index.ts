/**
 * What a client reads back of a request: its status (OpenAPI getStatus) and the rules of its downloads
 * (downloadFile, downloadRequest), over the store's ports; readers wait for sync files still being stored.
 */
export { RETRY_AFTER_SECONDS, resolveFileDownload, resolveRequestDownload } from "./download.ts";
export { downloadPath, requestStatus, type StatusBody } from "./request-status.ts";
export { whenStored } from "./when-stored.ts";
