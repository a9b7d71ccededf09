import { type FileRecord, pdfObjectKey, putFileRecords, putPdf } from "#shared/generation/store/index.ts";
import { ACTIVE_SHARD, type JobRecord, putJob } from "#shared/generation/store/index.ts";
import { paramsObjectKey, putParams } from "#shared/generation/store/index.ts";
import { newId } from "#shared/ids.ts";

/**
 * The state a render worker leaves behind when the process dies at a precise point
 * between settling a file record, counting it on the job (`countSettled`) and finalizing,
 * written straight into the stack's tables (call `useStackEmulators` first). After a
 * restart nothing of the dead process's SQS messages is left; only the stores remain.
 */
export type CrashWindow =
  /** Every file settled and counted, the process died before `finalizeJob`. */
  | "after-last-count"
  /** One file settled, the process died before `markSettled`; the other file was still queued. */
  | "between-settle-and-count"
  /**
   * A single: its file claimed straight to `done`, the process died before the one write that counts
   * it and ends the request (`finalizeSingle`).
   */
  | "single-settled-not-ended";

export interface CrashWindowRequest {
  requestId: string;
  fileIds: string[];
}

export interface CrashWindowInput {
  workspaceId: string;
  design: { designId: string; version: number; label: string };
  params: Record<string, unknown>;
  /** A real PDF to store for the settled files (so their downloads work). */
  pdf: Buffer;
}

/** Writes a request frozen in `window`: a two-file multiple, or a single. */
export async function writeCrashWindow(window: CrashWindow, input: CrashWindowInput): Promise<CrashWindowRequest> {
  const requestId = newId();
  const createdAt = new Date().toISOString();
  const expiresAt = Math.floor(Date.now() / 1000) + 30 * 86400;
  const mode = window === "single-settled-not-ended" ? "single" : "multiple";
  const fileIds = mode === "single" ? [newId()] : [newId(), newId()];
  const settledFiles = window === "after-last-count" ? 2 : 1;
  const job: JobRecord = {
    requestId,
    workspaceId: input.workspaceId,
    designId: input.design.designId,
    version: input.design.version,
    designLabel: input.design.label,
    mode,
    status: "processing",
    total: fileIds.length,
    settled: window === "after-last-count" ? 2 : 0,
    createdAt,
    enqueuedAt: createdAt,
    activeShard: ACTIVE_SHARD,
  };
  await putJob(job);
  const records: FileRecord[] = fileIds.map((fileId, index) => {
    const base: FileRecord = {
      requestId,
      fileId,
      workspaceId: input.workspaceId,
      designId: input.design.designId,
      version: input.design.version,
      fileName: `${window}-${index}`,
      index,
      status: "queued",
      source: "async",
      mode,
      shareType: "workspace",
      createdAt,
      expiresAt,
    };
    if (index >= settledFiles) return base;
    return {
      ...base,
      status: "done",
      pageCount: 1,
      s3Key: pdfObjectKey(input.workspaceId, requestId, fileId),
      completedAt: createdAt,
    };
  });
  await Promise.all(
    fileIds.map((fileId) => putParams(paramsObjectKey(input.workspaceId, requestId, fileId), input.params)),
  );
  await Promise.all(records.filter((r) => r.s3Key).map((r) => putPdf(r.s3Key!, input.pdf)));
  await putFileRecords(records);
  return { requestId, fileIds };
}
