import { catalogue } from "#shared/errors/catalogue.ts";
import type { GenerationEvent } from "#shared/webhooks/generation-event.ts";
import {
  type FileRecord,
  isFinal,
  type CountedAtEnd,
  type FailedFile,
  type JobRecord,
  type FinalizeDeps,
  JOB_RETENTION_MS,
} from "#shared/generation/store/index.ts";

/** The outcome of a finished request (see shared/generation/README.md#request-states-and-retention). */
export function outcomeOf(
  job: Pick<JobRecord, "mode">,
  files: FileRecord[],
): Pick<JobRecord, "status" | "failedFiles" | "error"> {
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
 * Finalizes a request if all its files are settled. Its events go into the outbox first
 * (idempotent writes), then the conditional finalization: whoever wins it queues the
 * deliveries; everyone else (duplicates, replays, racing workers) does nothing. A crash
 * or a failed queue between the two leaves the events in the outbox, which the sweeper
 * relays once the job has ended (webhooks/event-outbox.ts). Returns true when this call finalized.
 */
export async function finalizeIfSettled(requestId: string, deps: FinalizeDeps): Promise<boolean> {
  const job = await deps.requests.getJob(requestId);
  if (job?.status !== "processing") return false;
  const files = await deps.requests.listFiles(requestId);
  if (files.length < job.total || !files.every(isFinal)) return false;
  return finalizeWith(job, files, outcomeOf(job, files), deps);
}

/**
 * Records the request's events that some endpoint receives (none is written for an event
 * nobody would get), ends the job with `outcome` — counting `counted` in the same write — and,
 * if this call ended it, queues the deliveries.
 */
export async function finalizeWith(
  job: JobRecord,
  files: FileRecord[],
  outcome: ReturnType<typeof outcomeOf>,
  { clock, requests, outbox }: FinalizeDeps,
  counted?: CountedAtEnd,
): Promise<boolean> {
  const now = clock.now();
  const events = await outbox.due(finalEvents(job, files, now));
  const expiresAt = Math.max(...files.map((f) => f.expiresAt), Math.floor(now.getTime() / 1000) + 86400);
  for (const e of events) await outbox.record(e, expiresAt);
  const won = await requests.finalizeJob(
    job.requestId,
    { ...outcome, completedAt: now.toISOString(), expiresAt: Math.floor((now.getTime() + JOB_RETENTION_MS) / 1000) },
    counted,
  );
  if (won) for (const e of events) await outbox.deliver(e);
  return won;
}

/**
 * Ends a request of one file when that file is final: its count and the end are one write
 * (`finalizeJob` with `counted`) instead of `markSettled` and then the end. Returns false when the
 * request is not one to end this way (more files, not final, ended already); the caller then
 * counts as for any request.
 */
export async function finalizeSingle(
  requestId: string,
  fileId: string,
  deps: FinalizeDeps,
  aliveAt?: string,
): Promise<boolean> {
  const job = await deps.requests.getJob(requestId);
  if (job?.status !== "processing" || job.total !== 1) return false;
  const files = await deps.requests.listFiles(requestId);
  if (files.length !== 1 || files[0]!.fileId !== fileId || !isFinal(files[0]!)) return false;
  await finalizeWith(job, files, outcomeOf(job, files), deps, { fileIds: [fileId], ...(aliveAt && { aliveAt }) });
  return true;
}

/**
 * shared/webhooks/README.md#which-endpoints-get-what: file.completed for successes; file.failed only when
 * webhookUrl was given.
 */
function finalEvents(job: JobRecord, files: FileRecord[], now: Date): GenerationEvent[] {
  const base = {
    workspaceId: job.workspaceId,
    requestId: job.requestId,
    designId: job.designId,
    version: job.version,
    timestamp: now.toISOString(),
  };
  const done = files.filter((f) => f.status === "done").map((f) => f.fileId);
  const failed = files.filter((f) => f.status === "failed").map((f) => f.fileId);
  const webhookUrl = job.webhookUrl ? { webhookUrl: job.webhookUrl } : {};
  const events: GenerationEvent[] = [];
  if (done.length) events.push({ ...base, event: "file.completed", fileIds: done, ...webhookUrl });
  if (failed.length && job.webhookUrl) {
    const errorCode = done.length
      ? "PARTIAL_FAILURE"
      : job.mode === "multiple"
        ? "FILE_GENERATION_FAILED"
        : (files.find((f) => f.status === "failed")?.errorCode ?? "INTERNAL_ERROR");
    events.push({ ...base, event: "file.failed", fileIds: failed, errorCode, ...webhookUrl });
  }
  return events;
}
