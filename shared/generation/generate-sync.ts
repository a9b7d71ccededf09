import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { newId } from "#shared/ids.ts";
import { admitPages, monthOf, planOf, settlePages } from "#shared/limits/page-quota.ts";
import { RenderError, type Renderer } from "#shared/render/renderer.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { listEndpointRecords } from "#shared/webhooks/endpoint-store.ts";
import { deliverEvent, type GenerationEvent, writeEventRecord } from "./events.ts";
import { type FileRecord, pdfObjectKey, putFileRecords, putPdf } from "./file-store.ts";
import { type PreparedGeneration, prepareGeneration } from "./prepare-generation.ts";
import type { GenerationRequest } from "./request-schema.ts";
import { generatePasscode, hashPasscode, type Share, shareTypes, shareUrl } from "./share.ts";

/**
 * The renders did not finish within the sync budget (spec 8: 60 s). The edge answers 504
 * like the gateway in front would; the page was killed at the deadline and no page counts.
 */
export class SyncDeadlineExceeded extends Error {
  constructor(options?: { cause?: unknown }) {
    super("sync generation ran out of time", options);
    this.name = "SyncDeadlineExceeded";
  }
}

export interface GeneratedFile {
  fileId: string;
  fileName: string;
  passthrough?: Record<string, string | number>;
  share: Share;
  pageCount: number;
  pdf: Buffer;
}

export interface SyncGeneration {
  requestId: string;
  designLabel: string;
  files: GeneratedFile[];
}

export interface SyncDeps {
  clock: Clock;
  renderer: Renderer;
  siteUrl: string;
  retentionDays: number;
  /** Milliseconds the renders may take before the sync deadline (spec 8: 60 s). */
  budgetMs: number;
}

/**
 * Sync generation (spec 4.1/4.2): validate against the design, render every file, store
 * the PDFs and file records (sync output is downloadable later, spec 3.1) and record
 * `file.completed`. Any failed file fails the whole request: no partial ZIP.
 */
export async function generateSync(workspace: Workspace, request: GenerationRequest, deps: SyncDeps): Promise<SyncGeneration> {
  const workspaceId = workspace.id;
  const prepared = await prepareGeneration(workspaceId, request);
  // spec 8: stopping plans reserve pages before rendering (the edge rule, page-quota.ts);
  // plans that never stop simply count what was stored.
  const admission = planOf(workspace).stops ? await admitPages(workspace, request.contents.length, deps.clock) : undefined;
  // Who gets the webhooks is looked up while the files render, not after.
  const endpoints = listEndpointRecords(workspaceId);
  endpoints.catch(() => undefined); // awaited (and reported) by the delivery step
  let reserved = admission?.reserved ?? 0;
  const month = admission?.month ?? monthOf(deps.clock.now());
  try {
    const requestId = newId();
    const files = await renderAll(request, prepared, requestId, deps);
    const { design } = prepared;
    const pages = files.reduce((n, f) => n + f.pageCount, 0);
    // The page count moves to the real pages beside the storage writes; a failed store undoes it.
    const [delivery] = await Promise.all([
      storeFiles(workspaceId, requestId, request.mode, design.designId, design.version, files, deps.clock.now(), deps.retentionDays, request.webhookUrl),
      settlePages(workspaceId, month, pages - reserved).then(() => {
        reserved = pages;
      }),
    ]);
    await deliverEvent(delivery.event, delivery.passcodes, endpoints);
    return { requestId, designLabel: design.manifest.label, files };
  } catch (err) {
    // Pages count only if the files were stored: a failed or abandoned render refunds them.
    await settlePages(workspaceId, month, -reserved);
    throw err;
  }
}

/** Renders every item; one failure fails them all (no partial ZIP). */
async function renderAll(request: GenerationRequest, prepared: PreparedGeneration, requestId: string, deps: SyncDeps): Promise<GeneratedFile[]> {
  const { design, bundle } = prepared;
  const renders = await Promise.allSettled(
    request.contents.map((c, i) =>
      deps.renderer.renderPdf({
        bundle,
        bundleKey: `${design.designId}@${design.version}`,
        params: prepared.values[i]!,
        title: c.fileName,
        passthrough: c.passthrough,
        timeoutMs: Math.max(1000, deps.budgetMs),
      }),
    ),
  );
  const failed = renders.find((r) => r.status === "rejected");
  if (failed) {
    const reason = (failed as PromiseRejectedResult).reason;
    if (reason instanceof RenderError && reason.code === "RENDER_TIMEOUT") throw new SyncDeadlineExceeded({ cause: reason });
    throw new PlatenError("INTERNAL_ERROR", { cause: reason });
  }
  return request.contents.map((c, i) => {
    const rendered = (renders[i] as PromiseFulfilledResult<{ pdf: Buffer; pageCount: number }>).value;
    const fileId = newId();
    const passcode = c.passcodeEnabled ? generatePasscode() : undefined;
    const share: Share = { shareType: shareTypes[c.shareType], url: shareUrl(deps.siteUrl, requestId, fileId), passcodeEnabled: c.passcodeEnabled, ...(passcode && { passcode }) };
    return { fileId, fileName: c.fileName, ...(c.passthrough && { passthrough: c.passthrough }), share, ...rendered };
  });
}

async function storeFiles(
  workspaceId: string,
  requestId: string,
  mode: GenerationRequest["mode"],
  designId: string,
  version: number,
  files: GeneratedFile[],
  now: Date,
  retentionDays: number,
  webhookUrl?: string,
): Promise<{ event: GenerationEvent; passcodes: Record<string, string> }> {
  const expiresAt = Math.floor(now.getTime() / 1000) + retentionDays * 86400;
  const stored = Promise.all(files.map((f) => putPdf(pdfObjectKey(workspaceId, requestId, f.fileId), f.pdf)));
  const records: FileRecord[] = files.map((f, index) => ({
    requestId,
    fileId: f.fileId,
    workspaceId,
    designId,
    version,
    fileName: f.fileName,
    index,
    status: "done",
    source: "sync",
    mode,
    shareType: f.share.shareType,
    ...(f.share.passcode && { passcodeHash: hashPasscode(f.share.passcode) }),
    ...(f.passthrough && { passthrough: f.passthrough }),
    pageCount: f.pageCount,
    bytes: f.pdf.length,
    s3Key: pdfObjectKey(workspaceId, requestId, f.fileId),
    createdAt: now.toISOString(),
    completedAt: now.toISOString(),
    expiresAt,
  }));
  const timestamp = now.toISOString();
  const event = { event: "file.completed" as const, workspaceId, requestId, designId, version, fileIds: files.map((f) => f.fileId), ...(webhookUrl && { webhookUrl }), timestamp };
  await Promise.all([stored, putFileRecords(records), writeEventRecord(event, expiresAt)]);
  // Webhook deliveries go out (caller) only once PDFs and records exist: a receiver may
  // download at once. Passcodes exist in clear only here, for the first delivery (spec 6.1).
  const passcodes = Object.fromEntries(files.flatMap((f) => (f.share.passcode ? [[f.fileId, f.share.passcode]] : [])));
  return { event, passcodes };
}
