import { PlatenError } from "#shared/errors/platen-error.ts";
import type { FileRecord, DownloadDeps, ReadDeps } from "#shared/generation/store/index.ts";
import { liveFiles, liveJob } from "./request-status.ts";
import { whenStored } from "./when-stored.ts";

/**
 * OpenAPI downloadRequest, shared/generation/README.md#request-states-and-retention: Retry-After while a
 * request is still generating.
 */
export const RETRY_AFTER_SECONDS = 2;

const notReady = () => new PlatenError("FILE_NOT_READY", { retryAfter: RETRY_AFTER_SECONDS });
const failed = (requestId: string, failureCode: string) =>
  new PlatenError("FILE_GENERATION_FAILED", { vars: { failureCode, requestId } });

/**
 * The files of a whole-request download (OpenAPI downloadRequest): 409 while processing, 422 when the
 * request failed, 404 for unknown/foreign/expired ids; a completed request with partial
 * failure downloads its successful files.
 */
export async function resolveRequestDownload(requestId: string, workspaceId: string, deps: DownloadDeps) {
  const job = await liveJob(requestId, workspaceId, deps);
  if (job?.status === "processing") throw notReady();
  if (job?.status === "failed") throw failed(requestId, job.error?.code ?? "FILE_GENERATION_FAILED");
  const files = await liveFiles(requestId, workspaceId, deps);
  if (files.some((f) => f.status === "storing")) throw notReady();
  // A sync request answered in full but not stored in full: no silently partial ZIP.
  const interrupted = files.find((f) => f.source === "sync" && f.status === "failed");
  if (interrupted) throw failed(requestId, interrupted.errorCode ?? "GENERATION_INTERRUPTED");
  const done = files.filter((f) => f.status === "done");
  if (done.length) return { templateName: job?.designLabel ?? (await designLabel(done[0]!, deps)), files: done };
  // After 24 h: an all-failed multiple still answers 422; a failed single, like no files, is 404.
  if (!job && files.length && files.every((f) => f.status === "failed") && files[0]!.mode === "multiple") {
    throw failed(requestId, "FILE_GENERATION_FAILED");
  }
  throw new PlatenError("FILE_NOT_FOUND");
}

/** One file (OpenAPI downloadFile): the same rules applied to the file, 422 naming its own failure code. */
export async function resolveFileDownload(
  requestId: string,
  fileId: string,
  workspaceId: string,
  deps: ReadDeps,
): Promise<FileRecord> {
  const { requests, clock } = deps;
  const [file] = await whenStored(async () => {
    const record = await requests.getFile(requestId, fileId);
    return record?.workspaceId === workspaceId ? [record] : [];
  }, clock);
  if (!file || file.expiresAt <= Math.floor(clock.now().getTime() / 1000)) throw new PlatenError("FILE_NOT_FOUND");
  if (file.status === "done") return file;
  if (file.status === "storing") throw notReady();
  const job = await liveJob(requestId, workspaceId, deps);
  if (file.status === "queued" || file.status === "counting") {
    if (job?.status === "processing") throw notReady();
    throw new PlatenError("FILE_NOT_FOUND");
  }
  if (job || file.mode === "multiple" || file.source === "sync")
    throw failed(requestId, file.errorCode ?? "FILE_GENERATION_FAILED");
  throw new PlatenError("FILE_NOT_FOUND");
}

async function designLabel(file: FileRecord, { designs }: DownloadDeps): Promise<string> {
  return (await designs.labelOf(file.workspaceId, file.designId, file.version)) ?? "platen";
}
