import type { Clock } from "#shared/clock.ts";
import { catalogue } from "#shared/errors/catalogue.ts";
import { newId } from "#shared/ids.ts";
import { admitPages, type PageCounter, settlePages } from "#shared/limits/page-quota.ts";
import { addLogKeys, logger } from "#shared/observability/logger.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import {
  type FileRecord,
  putFileRecords,
  ACTIVE_SHARD,
  finalizeJob,
  type JobRecord,
  markEnqueued,
  putJob,
  INLINE_PARAMS_BYTES,
  paramsObjectKey,
  putParams,
  sealProtection,
  type Outcome,
} from "#shared/generation/store/index.ts";
import {
  type PlannedFile,
  type PlannedRecord,
  planFiles,
  resolveDesign,
  type GenerationRequest,
} from "#shared/generation/requests/index.ts";
import { type RenderMessage, sendRenderMessagesReporting } from "#shared/generation/scheduling/index.ts";
import { failAndMaybeFinalize } from "#shared/generation/settle/index.ts";

/** A file of an accepted request as the 202 answer lists it (OpenAPI generateAsyncSingle). */
export type AcceptedFile = PlannedFile;

export interface AsyncDeps {
  clock: Clock;
  siteUrl: string;
  retentionDays: number;
  /** The workspace's page counts (shared/limits/README.md#service-limits). */
  pages: PageCounter;
}

/**
 * Async acceptance (OpenAPI generateAsyncSingle, generateAsyncMultiple): validated like sync, then the job
 * record, the params (S3), the file records and one SQS message per file — in that order, so every message
 * finds what it names. Params types are checked per file by the worker (partial failure:
 * shared/generation/README.md#request-states-and-retention). Nothing here waits for rendering.
 */
export async function acceptAsync(
  workspace: Workspace,
  request: GenerationRequest,
  deps: AsyncDeps,
): Promise<{ requestId: string; files: AcceptedFile[] }> {
  const workspaceId = workspace.id;
  const design = await resolveDesign(workspaceId, request);
  // shared/limits/README.md#service-limits: checked before acceptance, so a quota refusal never shows up in
  // status.
  const requestId = newId();
  // A plan that never stops writes this request's pages to its own item of the month (page-shards.ts).
  const admission = await admitPages(workspace, request.contents.length, deps, requestId);
  addLogKeys({ requestId }); // every later line of this invocation names the request
  const now = deps.clock.now();
  const createdAt = now.toISOString();
  const plan = planFiles(request, requestId, deps.siteUrl);
  // Hashing (thread pool) runs while the job record is written.
  const planned = plan.records();
  planned.catch(() => undefined); // awaited below
  const files = plan.files;
  const job: JobRecord = {
    requestId,
    workspaceId,
    designId: design.designId,
    version: design.version,
    designLabel: design.manifest.label,
    mode: request.mode,
    status: "processing",
    total: files.length,
    settled: 0,
    ...(request.webhookUrl && { webhookUrl: request.webhookUrl }),
    createdAt,
    usageMonth: admission.month,
    ...(admission.spread !== undefined && { pagesByRequest: true }),
    activeShard: ACTIVE_SHARD,
  };
  try {
    await putJob(job);
  } catch (err) {
    await settlePages(deps.pages, workspaceId, admission.month, -admission.reserved, admission.spread);
    throw err;
  }
  const expiresAt = Math.floor(now.getTime() / 1000) + deps.retentionDays * 86400;
  let stored: FileRecord[] = [];
  let unsent: RenderMessage[] = [];
  try {
    // Params (inline when small, else S3) and file records exist before any message names them.
    const paramsJson = request.contents.map((c) => JSON.stringify(c.params));
    const inline = paramsJson.map((json) => Buffer.byteLength(json, "utf8") <= INLINE_PARAMS_BYTES);
    await Promise.all([
      ...request.contents.flatMap((c, i) =>
        inline[i] ? [] : [putParams(paramsObjectKey(workspaceId, requestId, files[i]!.fileId), c.params)],
      ),
      planned.then(async (records) => {
        // The worker renders in another process: passwords travel only sealed (protection-seal.ts).
        const sealed = await Promise.all(
          request.contents.map((c, i) =>
            c.protection ? sealProtection(c.protection, { requestId, fileId: files[i]!.fileId }) : undefined,
          ),
        );
        stored = records.map((r, index) => ({
          ...fileRecord(job, r, index, expiresAt, admission.limit),
          ...(inline[index] && { paramsJson: paramsJson[index] }),
          ...(sealed[index] && { sealedProtection: sealed[index] }),
          ...(request.contents[index]!.metadata && { metadata: request.contents[index]!.metadata }),
        }));
        await putFileRecords(stored);
      }),
    ]);
    const sent = await sendRenderMessagesReporting(files.map((f) => ({ workspaceId, requestId, fileId: f.fileId })));
    // Not one message queued: nothing can render, the request fails as a whole below.
    if (sent.unsent.length === files.length) throw sent.error ?? new Error("no render message could be queued");
    unsent = sent.unsent;
  } catch (err) {
    // Nothing will ever render: end the job now rather than leave it processing forever.
    await settlePages(deps.pages, workspaceId, admission.month, -admission.reserved, admission.spread).catch(
      () => undefined,
    );
    await finalizeJob(requestId, {
      status: "failed",
      completedAt: deps.clock.now().toISOString(),
      error: { code: "INTERNAL_ERROR", message: "The request could not be queued." },
      expiresAt: Math.floor(deps.clock.now().getTime() / 1000) + 86400,
    }).catch(() => undefined);
    throw err;
  }
  if (unsent.length) {
    // Some batches were queued and their files may be rendering already: the request lives on, and the files
    // whose messages were not sent fail now (reserved page returned, listed in the status and `file.failed`),
    // so every file that renders is billed and in the webhook, as in any partial failure. Failing them before
    // the mark below: if this throws, the sweeper fails what is still queued after the acceptance deadline.
    const byId = new Map(stored.map((f) => [f.fileId, f]));
    for (const m of unsent) await failAndMaybeFinalize(byId.get(m.fileId)!, notQueued, deps.clock);
    logger.error("render messages not queued; their files failed", { requestId, files: unsent.length });
  }
  // Acceptance is complete. If this mark is lost, the sweeper fails what is still queued
  // after the acceptance deadline; the messages are sent, so that is rarely anything.
  await markEnqueued(requestId, deps.clock.now().toISOString()).catch((err: Error) => {
    logger.error("job not marked enqueued", { requestId, error: err });
  });
  // The hash stays in the file records; the answer carries the passcode itself, once.
  return { requestId, files };
}

const notQueued: Outcome = {
  status: "failed",
  errorCode: "GENERATION_INTERRUPTED",
  errorMessage: catalogue.GENERATION_INTERRUPTED.en,
};

function fileRecord(
  job: JobRecord,
  { file: f, passcodeHash }: PlannedRecord,
  index: number,
  expiresAt: number,
  pageLimit: number | undefined,
): FileRecord {
  return {
    requestId: job.requestId,
    fileId: f.fileId,
    workspaceId: job.workspaceId,
    designId: job.designId,
    version: job.version,
    fileName: f.fileName,
    index,
    status: "queued",
    source: "async",
    mode: job.mode,
    shareType: f.share.shareType,
    ...(passcodeHash && { passcodeHash }),
    ...(f.passthrough && { passthrough: f.passthrough }),
    createdAt: job.createdAt,
    ...(job.usageMonth && { usageMonth: job.usageMonth }),
    ...(pageLimit !== undefined && { pageLimit }),
    ...(job.pagesByRequest && { pagesByRequest: true }),
    expiresAt,
  };
}
