/**
 * What handlers use of generation: accepting and validating requests, status, downloads,
 * file records, settling and the sweeper. Handlers import generation through its faces,
 * split by what they load, so a function's bundle carries only what it may need:
 * - this one: the domain (no ZIP writer, no Chromium);
 * - ./http/index.ts: the answers of the generation routes (PDF and ZIP bodies, headers);
 * - ./rendering.ts: rendering (Chromium), for the functions that render.
 * Code inside shared/ imports the files themselves.
 */
export { type AcceptedFile, acceptAsync } from "#shared/generation/async/accept-async.ts";
export { RETRY_AFTER_SECONDS, resolveFileDownload } from "#shared/generation/reads/download.ts";
export { type FileRecord, getFileRecord, listFileRecords, openPdf } from "#shared/generation/store/file-store.ts";
export { whenStored } from "#shared/generation/reads/when-stored.ts";
export { getJob } from "#shared/generation/store/job-store.ts";
export { verifyPasscode } from "#shared/generation/requests/passcodes.ts";
export { parseRenderMessage } from "#shared/generation/scheduling/render-queue.ts";
export { replaySync, toStoredSync } from "#shared/generation/sync/replay-sync.ts";
export { liveRequestDeps } from "#shared/generation/store/request-adapters.ts";
export { requestStatus, type StatusBody } from "#shared/generation/reads/request-status.ts";
export { failAndMaybeFinalize } from "#shared/generation/settle/settle-file.ts";
export { type SweepReport, sweepStalled } from "#shared/generation/async/sweep.ts";
export { validateGenerationBody } from "#shared/generation/requests/validate-request.ts";
