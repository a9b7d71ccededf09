import type { Clock } from "#shared/clock.ts";
import { catalogue } from "#shared/errors/catalogue.ts";
import { recordEvent } from "./events.ts";
import { type FileRecord, listFileRecords } from "./file-store.ts";
import { type FailedFile, finalizeJob, getJob, type JobRecord } from "./job-store.ts";
import { JOB_RETENTION_MS } from "./retention.ts";

/** The outcome of a finished request (spec 3.1 transitions). */
export function outcomeOf(job: Pick<JobRecord, "mode">, files: FileRecord[]): Pick<JobRecord, "status" | "failedFiles" | "error"> {
  const failed = files.filter((f) => f.status === "failed");
  const failedFiles: FailedFile[] = failed.map((f) => ({
    fileId: f.fileId,
    fileName: f.fileName,
    code: f.errorCode ?? "INTERNAL_ERROR",
    message: f.errorMessage ?? catalogue.INTERNAL_ERROR.en,
  }));
  if (!failed.length) return { status: "completed" };
  if (failed.length < files.length) return { status: "completed", failedFiles };
  // Every file failed: a multiple is FILE_GENERATION_FAILED, a single keeps its file's own code.
  const error =
    job.mode === "multiple"
      ? { code: "FILE_GENERATION_FAILED", message: "Every file of the request failed." }
      : { code: failedFiles[0]!.code, message: failedFiles[0]!.message };
  return { status: "failed", failedFiles, error };
}

/**
 * Finalizes a request if all its files are settled. Whoever wins the conditional write
 * records the events; everyone else (duplicates, replays, racing workers) does nothing.
 * Returns true when this call finalized the request.
 */
export async function finalizeIfSettled(requestId: string, clock: Clock): Promise<boolean> {
  const job = await getJob(requestId);
  if (job?.status !== "processing") return false;
  const files = await listFileRecords(requestId);
  if (files.length < job.total || files.some((f) => f.status === "queued")) return false;
  const now = clock.now();
  const outcome = outcomeOf(job, files);
  const won = await finalizeJob(requestId, {
    ...outcome,
    completedAt: now.toISOString(),
    expiresAt: Math.floor((now.getTime() + JOB_RETENTION_MS) / 1000),
  });
  if (won) await recordFinalEvents(job, files, now);
  return won;
}

/** spec 6: file.completed for successes; file.failed only when webhookUrl was given. */
async function recordFinalEvents(job: JobRecord, files: FileRecord[], now: Date): Promise<void> {
  const base = { workspaceId: job.workspaceId, requestId: job.requestId, designId: job.designId, version: job.version, timestamp: now.toISOString() };
  const expiresAt = Math.max(...files.map((f) => f.expiresAt));
  const done = files.filter((f) => f.status === "done").map((f) => f.fileId);
  const failed = files.filter((f) => f.status === "failed").map((f) => f.fileId);
  const webhookUrl = job.webhookUrl ? { webhookUrl: job.webhookUrl } : {};
  if (done.length) await recordEvent({ ...base, event: "file.completed", fileIds: done, ...webhookUrl }, expiresAt);
  if (failed.length && job.webhookUrl) {
    const errorCode = done.length ? "PARTIAL_FAILURE" : job.mode === "multiple" ? "FILE_GENERATION_FAILED" : (files[0]!.errorCode ?? "INTERNAL_ERROR");
    await recordEvent({ ...base, event: "file.failed", fileIds: failed, errorCode, ...webhookUrl }, expiresAt);
  }
}
