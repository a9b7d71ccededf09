import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { FileRecord, JobRecord, ReadDeps } from "#shared/generation/store/index.ts";
import { whenStored } from "./when-stored.ts";

/** The body of OpenAPI getStatus. */
export interface StatusBody {
  requestId: string;
  status: "queued" | "processing" | "completed" | "failed";
  designId: string;
  version?: number;
  files: { fileId: string; fileName: string; pageCount?: number; downloadPath: string }[];
  failedFiles?: { fileId?: string; fileName: string; code: string; message: string }[];
  error?: { code: string; message: string };
  createdAt?: string;
  completedAt?: string;
}

export const downloadPath = (requestId: string, fileId: string) => `/v1/file/download/${requestId}/${fileId}`;

const nowSeconds = (clock: Clock) => Math.floor(clock.now().getTime() / 1000);

/** A job record counts only while processing or within 24 h of its end (TTL deletes late). */
export async function liveJob(
  requestId: string,
  workspaceId: string,
  { requests, clock }: ReadDeps,
): Promise<JobRecord | undefined> {
  const job = await requests.getJob(requestId);
  if (!job || job.workspaceId !== workspaceId) return undefined;
  if (job.status !== "processing" && job.expiresAt !== undefined && job.expiresAt <= nowSeconds(clock))
    return undefined;
  return job;
}

/** File records of the workspace that have not passed their retention (sync files read once stored). */
export async function liveFiles(
  requestId: string,
  workspaceId: string,
  { requests, clock }: ReadDeps,
): Promise<FileRecord[]> {
  const files = await whenStored(
    async () => (await requests.listFiles(requestId)).filter((f) => f.workspaceId === workspaceId),
    clock,
  );
  const now = nowSeconds(clock);
  return files.filter((f) => f.expiresAt > now);
}

/**
 * OpenAPI getStatus, shared/generation/README.md#request-states-and-retention: from the job record while it
 * lives; afterwards (and for sync requests) rebuilt from file records: `completed` with designId and files,
 * `failed` + FILE_GENERATION_FAILED for an all-failed multiple, 404 for a failed single or no files.
 */
export async function requestStatus(requestId: string, workspaceId: string, deps: ReadDeps): Promise<StatusBody> {
  const job = await liveJob(requestId, workspaceId, deps);
  // OpenAPI getStatus: `files` stays empty until completed, so a request still generating (what
  // clients poll) costs one read, not a listing of up to 100 file records.
  if (job && job.status !== "completed") return fromJob(job, []);
  const files = await liveFiles(requestId, workspaceId, deps);
  if (job) return fromJob(job, files);
  if (files.some((f) => f.status === "storing")) {
    const [first] = files as [FileRecord];
    return {
      requestId,
      status: "processing",
      designId: first.designId,
      version: first.version,
      files: [],
      createdAt: first.createdAt,
    };
  }
  const done = files.filter((f) => f.status === "done");
  // A sync file fails only by an interrupted store (when-stored.ts): the client has it, the
  // kept copy is missing, and the status says so instead of hiding it.
  const interrupted = files.filter((f) => f.source === "sync" && f.status === "failed");
  const failedFiles = interrupted.map((f) => ({
    fileId: f.fileId,
    fileName: f.fileName,
    code: f.errorCode ?? "GENERATION_INTERRUPTED",
    message: f.errorMessage ?? "",
  }));
  if (done.length) {
    return {
      requestId,
      status: "completed",
      designId: done[0]!.designId,
      files: done.map((f) => ({
        fileId: f.fileId,
        fileName: f.fileName,
        downloadPath: downloadPath(requestId, f.fileId),
      })),
      ...(failedFiles.length && { failedFiles }),
    };
  }
  if (interrupted.length) {
    const [first] = interrupted as [FileRecord];
    return {
      requestId,
      status: "failed",
      designId: first.designId,
      files: [],
      failedFiles,
      error: { code: failedFiles[0]!.code, message: failedFiles[0]!.message },
    };
  }
  const allFailedMultiple =
    files.length > 0 && files.every((f) => f.status === "failed") && files[0]!.mode === "multiple";
  if (allFailedMultiple) {
    return {
      requestId,
      status: "failed",
      designId: files[0]!.designId,
      files: [],
      error: { code: "FILE_GENERATION_FAILED", message: "Every file of the request failed." },
    };
  }
  // Failed single after 24 h, no files left, unknown id, another workspace, or files without a job record.
  throw new PlatenError("REQUEST_NOT_FOUND");
}

function fromJob(job: JobRecord, files: FileRecord[]): StatusBody {
  const finished = job.status !== "processing";
  return {
    requestId: job.requestId,
    status: job.status,
    designId: job.designId,
    version: job.version,
    // OpenAPI getStatus: empty until completed.
    files:
      job.status === "completed"
        ? files
            .filter((f) => f.status === "done")
            .map((f) => ({
              fileId: f.fileId,
              fileName: f.fileName,
              pageCount: f.pageCount,
              downloadPath: downloadPath(job.requestId, f.fileId),
            }))
        : [],
    ...(job.failedFiles?.length && { failedFiles: job.failedFiles }),
    ...(job.error && { error: job.error }),
    createdAt: job.createdAt,
    ...(finished && job.completedAt && { completedAt: job.completedAt }),
  };
}
