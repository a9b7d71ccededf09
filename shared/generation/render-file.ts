import type { Clock } from "#shared/clock.ts";
import { findDesignVersion, loadBundle } from "#shared/designs/find-design-version.ts";
import { catalogue } from "#shared/errors/catalogue.ts";
import { settlePages } from "#shared/limits/page-quota.ts";
import type { Renderer } from "#shared/render/renderer.ts";
import { RenderError } from "#shared/render/renderer.ts";
import { type FileRecord, getFileRecord, pdfObjectKey, putPdf, settleFileRecord } from "./file-store.ts";
import { finalizeIfSettled } from "./finalize-request.ts";
import { markSettled } from "./job-store.ts";
import { checkParams } from "./params-check.ts";
import { getParams, paramsObjectKey } from "./params-store.ts";
import type { RenderMessage } from "./render-queue.ts";

export interface WorkerDeps {
  clock: Clock;
  renderer: Renderer;
}

type Outcome = Pick<FileRecord, "status" | "pageCount" | "bytes" | "s3Key" | "errorCode" | "errorMessage">;

/**
 * Renders one file of an async request, idempotently: a file that is no longer queued
 * (duplicate or replayed message) is not rendered again, and the PDF key is derived from
 * the ids so a retry overwrites the same object. The settle transition is conditional,
 * so the request's counter moves exactly once per file; whoever settles the last file
 * finalizes. Transient errors throw (the message is retried, then dead-lettered).
 */
export async function renderQueuedFile(msg: RenderMessage, deps: WorkerDeps): Promise<void> {
  const file = await getFileRecord(msg.requestId, msg.fileId);
  if (!file || file.workspaceId !== msg.workspaceId) return; // nothing to do for an unknown file
  if (file.status !== "queued") {
    // A replay: the first attempt may have died between settling, counting and finalizing.
    await countAndMaybeFinalize(file.requestId, file.fileId, deps.clock);
    return;
  }
  const outcome = await produce(file, deps);
  await settleAndMaybeFinalize(file, outcome, deps.clock);
}

/** Settles a queued file (done or failed) and finalizes the request when it was the last. */
export async function settleAndMaybeFinalize(file: Pick<FileRecord, "requestId" | "fileId">, outcome: Outcome, clock: Clock): Promise<void> {
  const settled = await settleFileRecord(file.requestId, file.fileId, { ...outcome, completedAt: clock.now().toISOString() });
  if (!settled) return;
  const job = await markSettled(file.requestId, [file.fileId]);
  if (!job) return;
  // One page was reserved per file at acceptance; the real count replaces it exactly once.
  const delta = (outcome.status === "done" ? (outcome.pageCount ?? 0) : 0) - 1;
  await Promise.all([
    job.usageMonth ? settlePages(job.workspaceId, job.usageMonth, delta) : undefined,
    job.status === "processing" && job.settled >= job.total ? finalizeIfSettled(file.requestId, clock) : undefined,
  ]);
}

/** Counts a settled file (idempotently) and finalizes the request once every file is counted. */
async function countAndMaybeFinalize(requestId: string, fileId: string, clock: Clock): Promise<void> {
  const job = await markSettled(requestId, [fileId]);
  if (job?.status === "processing" && job.settled >= job.total) await finalizeIfSettled(requestId, clock);
}

async function produce(file: FileRecord, deps: WorkerDeps): Promise<Outcome> {
  const design = await findDesignVersion(file.workspaceId, file.designId, file.version);
  const params =
    file.paramsJson !== undefined
      ? (JSON.parse(file.paramsJson) as Record<string, unknown>)
      : await getParams(paramsObjectKey(file.workspaceId, file.requestId, file.fileId));
  // spec 3.1: params types are checked per file, so one bad file fails alone.
  const { values, mismatches } = checkParams(design.manifest.parameters, params, "params");
  if (mismatches.length) {
    const fields = mismatches.map((m) => `${m.field} (expected ${m.expected})`).join(", ");
    return { status: "failed", errorCode: "PARAMS_TYPE_MISMATCH", errorMessage: `A params value has the wrong type: ${fields}.` };
  }
  try {
    const rendered = await deps.renderer.renderPdf({
      bundle: await loadBundle(design),
      bundleKey: `${design.designId}@${design.version}`,
      params: values,
      title: file.fileName,
      passthrough: file.passthrough,
    });
    const s3Key = pdfObjectKey(file.workspaceId, file.requestId, file.fileId);
    await putPdf(s3Key, rendered.pdf);
    return { status: "done", pageCount: rendered.pageCount, bytes: rendered.pdf.length, s3Key };
  } catch (err) {
    // A template that cannot render will never render: fail the file. Time-outs and crashes retry.
    if (err instanceof RenderError && err.code === "TEMPLATE_FAILED") {
      return { status: "failed", errorCode: "INTERNAL_ERROR", errorMessage: `${catalogue.INTERNAL_ERROR.en} The template could not be rendered.` };
    }
    throw err;
  }
}
