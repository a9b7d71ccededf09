/**
 * What handlers use of generation: accepting and validating requests, status, downloads,
 * file records, settling and the sweeper. Handlers import generation through its faces,
 * split by what they load, so a function's bundle carries only what it may need:
 * - this one: the domain (no ZIP writer, no Chromium);
 * - ./http/index.ts: the answers of the generation routes (PDF and ZIP bodies, headers);
 * - ./rendering.ts: rendering (Chromium), for the functions that render.
 * Code inside shared/ imports the files themselves.
 */
export { type AcceptedFile, acceptAsync } from "./accept-async.ts";
export { RETRY_AFTER_SECONDS, resolveFileDownload } from "./download.ts";
export { type FileRecord, getFileRecord, listFileRecords, openPdf } from "./file-store.ts";
export { whenStored } from "./when-stored.ts";
export { getJob } from "./job-store.ts";
export { verifyPasscode } from "./passcodes.ts";
export { parseRenderMessage } from "./render-queue.ts";
export { replaySync, toStoredSync } from "./replay-sync.ts";
export { liveRequestDeps } from "./request-adapters.ts";
export { requestStatus, type StatusBody } from "./request-status.ts";
export { failAndMaybeFinalize } from "./settle-file.ts";
export { type SweepReport, sweepStalled } from "./sweep.ts";
export { validateGenerationBody } from "./validate-request.ts";
