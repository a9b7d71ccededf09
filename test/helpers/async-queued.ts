import { systemClock } from "#shared/clock.ts";
import { type FileRecord, pdfObjectKey, putFileRecords, putPdf } from "#shared/generation/store/index.ts";
import { ACTIVE_SHARD, type JobRecord, putJob } from "#shared/generation/store/index.ts";
import type { RenderMessage } from "#shared/generation/scheduling/index.ts";
import { COUNT_TAKEOVER_SECONDS } from "#shared/generation/settle/index.ts";
import { newId } from "#shared/ids.ts";
import { admitPages } from "#shared/limits/page-quota.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";

export interface QueuedFileInput {
  fileName: string;
  params: Record<string, unknown>;
  /**
   * Already rendered with this PDF and owned by a worker (`counting`, outcome `done`) that
   * died before counting its pages and the file on the job, longer ago than the takeover age
   * (settle-file.ts COUNT_TAKEOVER_SECONDS): the state a replay must finish.
   */
  settled?: { pdf: Buffer; pageCount: number };
}

export interface QueuedRequest {
  requestId: string;
  /** One render message per file, in order, none of them sent. */
  messages: RenderMessage[];
}

/**
 * Writes an accepted async multiple straight into a stack's stores as `acceptAsync` does
 * (one page reserved per file, the job, file records with inline params) but sends no
 * render message, so the test decides which messages the worker gets, and together with
 * which. Call `useStackEmulators` first.
 */
export async function writeQueuedRequest(
  workspaceId: string,
  design: { designId: string; version: number; label: string },
  files: QueuedFileInput[],
): Promise<QueuedRequest> {
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`no workspace ${workspaceId}`);
  const admission = await admitPages(workspace, files.length, { clock: systemClock, pages: dynamoPageCounter });
  const requestId = newId();
  const createdAt = new Date().toISOString();
  const job: JobRecord = {
    requestId,
    workspaceId,
    designId: design.designId,
    version: design.version,
    designLabel: design.label,
    mode: "multiple",
    status: "processing",
    total: files.length,
    settled: 0,
    createdAt,
    enqueuedAt: createdAt,
    usageMonth: admission.month,
    activeShard: ACTIVE_SHARD,
  };
  await putJob(job);
  const expiresAt = Math.floor(Date.now() / 1000) + 30 * 86400;
  const records = files.map((f, index): FileRecord => {
    const fileId = newId();
    const base = {
      requestId,
      fileId,
      workspaceId,
      designId: design.designId,
      version: design.version,
      fileName: f.fileName,
      index,
    };
    const pages = { usageMonth: admission.month, ...(admission.limit !== undefined && { pageLimit: admission.limit }) };
    const common = {
      ...base,
      ...pages,
      source: "async",
      mode: "multiple",
      shareType: "workspace",
      createdAt,
      expiresAt,
    } as const;
    if (!f.settled) return { ...common, status: "queued", paramsJson: JSON.stringify(f.params) };
    const s3Key = pdfObjectKey(workspaceId, requestId, fileId);
    return {
      ...common,
      status: "counting",
      pendingStatus: "done",
      countingAt: new Date(Date.now() - (COUNT_TAKEOVER_SECONDS + 60) * 1000).toISOString(),
      pageCount: f.settled.pageCount,
      bytes: f.settled.pdf.length,
      s3Key,
    };
  });
  await Promise.all(files.flatMap((f, i) => (f.settled ? [putPdf(records[i]!.s3Key!, f.settled.pdf)] : [])));
  await putFileRecords(records);
  return { requestId, messages: records.map((r) => ({ workspaceId, requestId, fileId: r.fileId })) };
}
