import type { Clock } from "#shared/clock.ts";
import { findDesignVersion, loadBundle } from "#shared/designs/find-design-version.ts";
import { settlePages } from "#shared/limits/page-quota.ts";
import type { Renderer } from "#shared/render/renderer.ts";
import { permanentFileFailure } from "./document-failure.ts";
import { type FileRecord, pdfObjectKey, putPdf, settleFileRecord } from "./file-store.ts";
import { finalizeIfSettled } from "./finalize-request.ts";
import { markSettled } from "./job-store.ts";
import { checkParams } from "./params-check.ts";
import { getParams, paramsObjectKey } from "./params-store.ts";

export interface WorkerDeps {
  clock: Clock;
  renderer: Renderer;
}

/** What rendering a queued file came to (the fields its settle writes). */
export type Outcome = Pick<FileRecord, "status" | "pageCount" | "bytes" | "s3Key" | "errorCode" | "errorMessage">;

/** A settled file as its request's count needs it. */
export interface SettledFile {
  fileId: string;
  /** Real pages − the one page reserved per file at acceptance. */
  pageDelta: number;
}

/** A settled file (its outcome or its record) with the page correction it is due. */
export const settledFileOf = (fileId: string, outcome: Pick<FileRecord, "status" | "pageCount">): SettledFile => ({
  fileId,
  pageDelta: (outcome.status === "done" ? (outcome.pageCount ?? 0) : 0) - 1,
});

/**
 * Moves a queued file to its outcome, exactly once: false when it was no longer queued
 * (a duplicate or replayed message got there first), which makes the caller a no-op.
 */
export function settleFile(file: Pick<FileRecord, "requestId" | "fileId">, outcome: Outcome, clock: Clock): Promise<boolean> {
  return settleFileRecord(file.requestId, file.fileId, { ...outcome, completedAt: clock.now().toISOString() });
}

/** Settles a queued file (done or failed) and finalizes the request when it was the last. */
export async function settleAndMaybeFinalize(file: Pick<FileRecord, "requestId" | "fileId">, outcome: Outcome, clock: Clock): Promise<void> {
  if (await settleFile(file, outcome, clock)) await countSettled(file.requestId, [settledFileOf(file.fileId, outcome)], clock);
}

/**
 * Counts settled files of one request (idempotently) and finalizes it once every file is
 * counted. A file's page reservation is corrected by the call that adds it to the job's
 * settled set, and only by that one: a replay never counts pages twice, and a file whose
 * first attempt died between settling and counting still gets its real page count.
 */
export async function countSettled(requestId: string, files: SettledFile[], clock: Clock): Promise<void> {
  const counted = await markSettled(requestId, files.map((f) => f.fileId));
  if (!counted) return;
  const { job, added } = counted;
  const addedHere = new Set(added);
  // `delete`: a file listed twice is corrected once.
  const delta = files.filter((f) => addedHere.delete(f.fileId)).reduce((sum, f) => sum + f.pageDelta, 0);
  await Promise.all([
    job.usageMonth ? settlePages(job.workspaceId, job.usageMonth, delta) : undefined,
    job.status === "processing" && job.settled >= job.total ? finalizeIfSettled(requestId, clock) : undefined,
  ]);
}

/**
 * Renders a queued file to its outcome: the PDF is stored under a key derived from the
 * ids, so a retry overwrites the same object. A file that cannot render (bad params, a
 * failing template) fails alone; transient errors throw (the message is retried, then
 * dead-lettered).
 */
export async function produceFile(file: FileRecord, deps: WorkerDeps): Promise<Outcome> {
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
      // The wait for a browser (a busy batch) never eats the document's own time budget.
      budgetFrom: "browser",
    });
    const s3Key = pdfObjectKey(file.workspaceId, file.requestId, file.fileId);
    await putPdf(s3Key, rendered.pdf);
    return { status: "done", pageCount: rendered.pageCount, bytes: rendered.pdf.length, s3Key };
  } catch (err) {
    // A document that cannot render (template error, a document limit, out of time) never
    // will: fail the file, nothing counted. Crashes and a busy renderer retry.
    const failure = permanentFileFailure(err);
    if (failure) return { status: "failed", ...failure };
    throw err;
  }
}
