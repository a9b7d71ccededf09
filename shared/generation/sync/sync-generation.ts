import { setImmediate as nextTurn } from "node:timers/promises";
import type { Clock } from "#shared/clock.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import type { DesignVersion } from "#shared/designs/design-store.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { AdmissionsInProgress } from "#shared/admissions-first.ts";
import { newId } from "#shared/ids.ts";
import { admitPages, claimPages, monthOf, type PageCounter, planOf, settlePages } from "#shared/limits/page-quota.ts";
import { addLogKeys } from "#shared/observability/logger.ts";
import type { Renderer } from "#shared/render/renderer.ts";
import { documentArchive, type PreparedDocument, prepareDocument } from "#shared/render/einvoice-document.ts";
import { compiledBundleKey } from "#shared/render/template.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import {
  documentLimitError,
  isRenderDeadline,
  type PlannedFile,
  type PlannedRecord,
  planFiles,
  templateFileOf,
  prepareGeneration,
  type GenerationRequest,
} from "#shared/generation/requests/index.ts";
import {
  deleteFileRecords,
  type FileRecord,
  pdfObjectKey,
  putFileRecords,
  putEinvoiceXml,
  putPdf,
  inTurns,
} from "#shared/generation/store/index.ts";
import type { Share } from "#shared/share-link.ts";
import { type DocumentSigner, type SignerDeps, startDesignSigner } from "#shared/signing/design-signer.ts";
import type { SyncMemory } from "./sync-memory.ts";
import type { KeepRecordDeps } from "#shared/records/keep-record.ts";
import { evaluateRecordFields, type RecordFields } from "#shared/records/record-fields.ts";

/**
 * The renders did not finish within the sync budget (shared/limits/README.md#service-limits: 60 s). The edge
 * answers 504 like the gateway in front would; the page was killed at the deadline and no page counts.
 */
export class SyncDeadlineExceeded extends Error {
  constructor(options?: { cause?: unknown }) {
    super("sync generation ran out of time", options);
    this.name = "SyncDeadlineExceeded";
  }
}

/** A file still `storing` this long after its answer was interrupted (the function's time-out is 60 s). */
export const STORE_DEADLINE_SECONDS = 120;

export interface GeneratedFile {
  fileId: string;
  fileName: string;
  passthrough?: Record<string, string | number>;
  share: Share;
  pageCount: number;
  pdf: Buffer;
  /** The e-invoice's XML, for a design with `einvoice`. */
  einvoiceXml?: Buffer;
  /** A record design's fields (shared/records/README.md). */
  record?: RecordFields;
}

export interface SyncGeneration {
  requestId: string;
  designLabel: string;
  files: GeneratedFile[];
}

/** A generated request whose PDFs are not stored yet: `store` does it (after the answer). */
export interface UnstoredSyncGeneration extends SyncGeneration {
  /** Counts the pages, then stores PDFs, records and the event. */
  store(): Promise<void>;
  /** Undoes what was counted and written ahead, for a request that will not be answered with its files. */
  discard(): Promise<void>;
}

export interface SyncDeps {
  clock: Clock;
  renderer: Renderer;
  retentionDays: number;
  /**
   * Milliseconds the renders may take before the sync deadline (shared/limits/README.md#service-limits: 60 s).
   */
  budgetMs: number;
  /** The workspace's page counts (shared/limits/README.md#service-limits). */
  pages: PageCounter;
  /** The container's memory (sync-memory.ts): storing yields to the requests it is admitting. */
  memory: SyncMemory;
  /** Where a record design's files are kept as records; absent: the deployment's own. */
  records?: KeepRecordDeps;
}

/** A sync request checked and templated: everything before the first effect. */
export interface PreparedSync {
  request: GenerationRequest;
  design: DesignVersion;
  bundle: DesignBundle;
  /** Chosen here, not at storing: the templates print their file's id and share URL (`file.share.url`). */
  requestId: string;
  /** The files' ids, share URLs and passcodes; their records' passcode hashes are made later, off the loop. */
  plan: { files: PlannedFile[]; records(): Promise<PlannedRecord[]> };
  /** The HTML of item `i` (and its record fields); a single's is templated ahead, a multiple's when a browser is free. */
  html(i: number): Promise<PreparedDocument & { record?: RecordFields }>;
  /** The renders, when started ahead of admission (render-ahead.ts); else `generateSync` starts them. */
  rendered?: Renders;
  /** Rejects DESIGN_VERSION_NOT_FOUND if the design is archived (prepare-generation.ts): awaited before any effect. */
  current: Promise<void>;
  /** A signed design's signer, its identity read while Chromium renders; rejects SIGNING_FAILED. */
  signer?: Promise<DocumentSigner>;
}

/** A request's renders under way. */
export interface Renders {
  /** Every item's PDF; one failure fails them all. */
  pdfs: Promise<RenderedItem[]>;
  /**
   * Resolves once the first item's document is with Chromium (its browser taken, the document
   * on its way), or when the renders end without getting that far.
   */
  started: Promise<void>;
}

/** One item's PDF as Chromium printed it (post-processed). */
export interface RenderedItem {
  pdf: Buffer;
  pageCount: number;
  /** The e-invoice's XML, for a design with `einvoice`. */
  einvoiceXml?: Buffer;
  record?: RecordFields;
}

/**
 * Design, version and params (OpenAPI generateSyncSingle, getDesignParameters), the files' ids and share URLs and,
 * for a single, the HTML: no writes, so it may run while the caller's admission is still being checked. The ids
 * are made here because the template prints them (`file.share.url`); a prepare that admission then refuses
 * only drops ids nobody saw.
 */
export async function prepareSync(
  workspaceId: string,
  request: GenerationRequest,
  siteUrl: string,
  signing?: SignerDeps,
): Promise<PreparedSync> {
  const { design, bundle, values, current } = await prepareGeneration(workspaceId, request);
  const requestId = newId();
  const signature = bundle.manifest.signature;
  const signer = signature && startDesignSigner(workspaceId, signature, new Date(), requestId, signing);
  const plan = planFiles(request, requestId, siteUrl);
  const template = (i: number) =>
    prepareDocument(bundle, values[i]!, {
      title: request.contents[i]!.fileName,
      bundleKey: compiledBundleKey(workspaceId, design),
      file: templateFileOf(plan.files[i]!),
      mappingParams: request.contents[i]!.params,
    })
      .catch((cause) => {
        if (isRenderDeadline(cause)) throw new SyncDeadlineExceeded({ cause });
        throw documentLimitError(cause) ?? new PlatenError("INTERNAL_ERROR", { cause });
      })
      // A record design's fields, evaluated with the computed e-invoice before a browser is taken:
      // RECORD_FIELDS_INVALID (422) refuses the request there (shared/records/README.md).
      .then((doc) => {
        const spec = bundle.manifest.record;
        if (!spec) return doc;
        return { ...doc, record: evaluateRecordFields(spec, { params: values[i]!, einvoice: doc.einvoice?.invoice }) };
      });
  const ahead = request.mode === "single" ? template(0) : undefined;
  ahead?.catch(() => undefined); // reported when awaited
  return {
    request,
    design,
    bundle,
    requestId,
    plan,
    html: (i) => (i === 0 && ahead ? ahead : template(i)),
    current,
    ...(signer && { signer }),
  };
}

/**
 * Sync generation (OpenAPI generateSyncSingle, generateSyncMultiple). The file records are written ahead as
 * `storing` while Chromium renders, so the answer needs no write after the last render: the page
 * count, the PDFs (each its file's commit) and `file.completed` follow in `store()`, which the
 * handler runs once the response is sent. A reader that meets a `storing` file waits for
 * it (when-stored.ts). Any failed render fails the whole request: no partial ZIP, and
 * the records written ahead are removed.
 */
export async function generateSync(
  workspace: Workspace,
  prepared: PreparedSync,
  deps: SyncDeps,
): Promise<UnstoredSyncGeneration> {
  const { request, design, requestId, plan } = prepared;
  const workspaceId = workspace.id;
  await prepared.current;
  // shared/limits/README.md#service-limits: stopping plans reserve pages before rendering (the edge rule,
  // page-quota.ts); plans that never stop simply count what was stored.
  const admission = planOf(workspace).stops ? await admitPages(workspace, request.contents.length, deps) : undefined;
  const reserved = admission?.reserved ?? 0;
  const month = admission?.month ?? monthOf(deps.clock.now());
  addLogKeys({ requestId }); // every later line of this invocation names the request
  // A plan that never stops counts at store, on the request's own item of the month (page-shards.ts).
  const spread = admission ? undefined : ({ requestId, layout: "request" } as const);
  const now = deps.clock.now();
  const planned = plan.files;
  // Chromium first: hashing passcodes (thread pool) and the write's own CPU (serialising,
  // signing; a cold container's first BatchWriteItem) then run while it renders. The write
  // waits until the first document is on its way to Chromium: in a cold container the
  // templating, and the print page's set-up (DevTools round trips, each needing a turn of the
  // event loop), may still be under way here (the render started ahead of admission).
  const renders = prepared.rendered ?? renderAll(prepared, deps);
  const rendering = renders.pdfs;
  const writtenAhead = Promise.all([plan.records(), renders.started.then(() => nextTurn()), prepared.signer]).then(
    async ([planned, , signer]) => {
      const records = planned.map((r, index) => ({
        ...fileRecord(workspaceId, requestId, request, design, r, index, now, deps.retentionDays),
        ...(signer && { signature: signer.signature }),
      }));
      await putFileRecords(records);
      return records;
    },
  );
  writtenAhead.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
  let files: GeneratedFile[];
  let records: FileRecord[];
  // Pages counted so far for this request: the reservation, then the real count.
  let counted = reserved;
  try {
    const rendered = await rendering;
    files = planned.map((f, i) => ({ ...f, ...rendered[i]! }));
    // A stopping plan: the pages beyond the reservation are claimed before anything is
    // answered; past the limit the request is refused (403) and its reservation returned.
    const pages = files.reduce((n, f) => n + f.pageCount, 0);
    if (admission) await claimPages(deps.pages, workspaceId, month, pages - reserved, admission.limit, reserved);
    counted = admission ? pages : reserved;
    records = await writtenAhead;
    // Records are kept before the answer: a delivered file never lacks its record (shared/records/README.md).
    if (files.some((f) => f.record)) await keepSyncRecords(workspaceId, requestId, design, files, deps);
  } catch (err) {
    // Nothing was answered: no page counts and no record stays behind.
    await Promise.all([
      counted ? settlePages(deps.pages, workspaceId, month, -counted, spread) : undefined,
      writtenAhead.then((written) => deleteFileRecords(written)).catch(() => undefined),
    ]);
    throw err;
  }
  return {
    requestId,
    designLabel: design.manifest.label,
    files,
    store: () =>
      storeFiles(
        workspaceId,
        requestId,
        request.webhookUrl,
        records,
        files,
        now,
        { clock: deps.clock, admitting: deps.memory.admissions.inProgress },
        async (pages) => {
          await settlePages(deps.pages, workspaceId, month, pages - counted, spread);
          counted = pages;
        },
      ),
    discard: async () => {
      await Promise.all([
        counted ? settlePages(deps.pages, workspaceId, month, -counted, spread) : undefined,
        deleteFileRecords(records),
      ]);
      counted = 0;
    },
  };
}

/** Starts every item's render; one failure fails them all (no partial ZIP). */
export function renderAll(prepared: PreparedSync, deps: Pick<SyncDeps, "renderer" | "budgetMs">): Renders {
  let firstTaken: () => void = () => {};
  const taken = new Promise<void>((resolve) => {
    firstTaken = resolve;
  });
  const pdfs = printAll(prepared, deps, firstTaken);
  pdfs.catch(() => undefined); // reported when awaited, or dropped with the request
  const ended = pdfs.then(
    () => undefined,
    () => undefined,
  );
  return { pdfs, started: Promise.race([taken, ended]) };
}

async function printAll(
  prepared: PreparedSync,
  deps: Pick<SyncDeps, "renderer" | "budgetMs">,
  firstTaken: () => void,
): Promise<RenderedItem[]> {
  const { request, bundle } = prepared;
  const renders = await Promise.allSettled(
    request.contents.map(async (c, i) => {
      const { html, einvoice, record } = await prepared.html(i);
      const printed = await deps.renderer.printPdf({
        bundle,
        html,
        ...documentArchive(bundle, einvoice),
        title: c.fileName,
        passthrough: c.passthrough,
        ...(c.metadata && { metadata: c.metadata }),
        // Encrypted here, in the request's own process: the passwords live only as long as the request.
        ...(c.protection && { protection: c.protection }),
        timeoutMs: Math.max(1000, deps.budgetMs),
        ...(i === 0 && { onBrowser: firstTaken }),
      });
      // Signing is the last step: an incremental update over everything else the PDF holds.
      const signer = await prepared.signer;
      const pdf = signer ? { ...printed, pdf: await signer.sign(printed.pdf) } : printed;
      return { ...pdf, ...(einvoice && { einvoiceXml: einvoice.xml }), ...(record && { record }) };
    }),
  );
  const failed = renders.find((r) => r.status === "rejected");
  if (failed) {
    const reason = (failed as PromiseRejectedResult).reason;
    if (isRenderDeadline(reason)) throw new SyncDeadlineExceeded({ cause: reason });
    if (reason instanceof PlatenError) throw reason;
    throw documentLimitError(reason) ?? new PlatenError("INTERNAL_ERROR", { cause: reason });
  }
  return renders.map((r) => (r as PromiseFulfilledResult<RenderedItem>).value);
}

/** Each generated file of a record design kept as a record (once per file id: a retry appends nothing). */
async function keepSyncRecords(
  workspaceId: string,
  requestId: string,
  design: DesignVersion,
  files: GeneratedFile[],
  deps: SyncDeps,
): Promise<void> {
  // Only a record design's request gets here (before its answer): the records' modules (their stores and
  // schemas) load then, not at every cold start (shared/generation/sync/README.md).
  const { keepRecord, liveRecordDeps } = await import("#shared/records/keep-record.ts");
  const records = deps.records ?? (await liveRecordDeps(deps.clock));
  await inTurns(files, PARALLEL_PUTS, async (f) => {
    if (!f.record) return;
    const file = { workspaceId, designId: design.designId, version: design.version, requestId, fileId: f.fileId };
    await keepRecord(records, { ...file, fileName: f.fileName }, f.record, f.pdf);
  });
}

function fileRecord(
  workspaceId: string,
  requestId: string,
  request: GenerationRequest,
  design: DesignVersion,
  { file: f, passcodeHash }: PlannedRecord,
  index: number,
  now: Date,
  retentionDays: number,
): FileRecord {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return {
    requestId,
    fileId: f.fileId,
    workspaceId,
    designId: design.designId,
    version: design.version,
    fileName: f.fileName,
    index,
    status: "storing",
    source: "sync",
    mode: request.mode,
    shareType: f.share.shareType,
    ...(passcodeHash && { passcodeHash }),
    ...(f.passthrough && { passthrough: f.passthrough }),
    s3Key: pdfObjectKey(workspaceId, requestId, f.fileId),
    createdAt: now.toISOString(),
    storeBy: nowSeconds + STORE_DEADLINE_SECONDS,
    expiresAt: nowSeconds + retentionDays * 86400,
  };
}

/**
 * Pages first: the client has its PDFs once answered, so they count whatever happens to the
 * copies kept (OpenAPI generateSyncSingle). Then the PDFs, each written with its page count and
 * completion time: from then on its record reads `done` (file-store.ts `resolveStored`; a reader never
 * sees `done` without its PDF), then the outbox item; webhook deliveries go out last, so a
 * receiver may download at once. Passcodes exist in clear only here, for the first
 * delivery (see shared/webhooks/README.md#payloads).
 * Background work: one store call at a time (a few PDFs at once for a multiple), each
 * after the admissions in progress in this container (`admitting`, shared/admissions-first.ts), so requests
 * arriving meanwhile never queue behind a burst of these (the local stack serves many at once).
 */
async function storeFiles(
  workspaceId: string,
  requestId: string,
  webhookUrl: string | undefined,
  records: FileRecord[],
  files: GeneratedFile[],
  generatedAt: Date,
  { clock, admitting }: { clock: Clock; admitting: AdmissionsInProgress },
  countPages: (pages: number) => Promise<void>,
): Promise<void> {
  const call = <T>(fn: () => Promise<T>) => admitting.afterAdmissions().then(fn);
  await call(() => countPages(files.reduce((n, f) => n + f.pageCount, 0)));
  const completedAt = clock.now().toISOString();
  const { designId, version, expiresAt } = records[0]!;
  const event = {
    event: "file.completed" as const,
    workspaceId,
    requestId,
    designId,
    version,
    fileIds: files.map((f) => f.fileId),
    ...(webhookUrl && { webhookUrl }),
    timestamp: completedAt,
  };
  // Each PDF is its file's commit (file-store.ts `resolveStored`): its record, written ahead as
  // `storing`, reads `done` from then on without another write.
  await inTurns(files, PARALLEL_PUTS, async (f, i) => {
    const key = records[i]!.s3Key!;
    // The XML before the PDF that commits the file: a `done` file has its e-invoice.
    if (f.einvoiceXml) await call(() => putEinvoiceXml(key, f.einvoiceXml!));
    await call(() => putPdf(key, f.pdf, { pageCount: f.pageCount, completedAt }));
  });
  // file.completed goes to the endpoints registered when the request arrived, not to one
  // registered after the answer, although the event is recorded after it. With none to
  // deliver to, nothing is written: the outbox item exists only for the relay.
  const since = generatedAt.toISOString();
  // The webhook modules (endpoint and delivery stores, their schemas, SQS) load after the answer, not at init.
  const [{ listEndpointRecords }, { routeEvent }, { deliverEvent, writeEventRecord }] = await Promise.all([
    import("#shared/webhooks/endpoint-store.ts"),
    import("#shared/webhooks/routing.ts"),
    import("#shared/webhooks/event-outbox.ts"),
  ]);
  const endpoints = await call(() =>
    listEndpointRecords(workspaceId).then((all) => all.filter((e) => e.createdAt <= since)),
  );
  if (!routeEvent(event, endpoints).length) return;
  await call(() => writeEventRecord(event, expiresAt, since));
  const passcodes = Object.fromEntries(files.flatMap((f) => (f.share.passcode ? [[f.fileId, f.share.passcode]] : [])));
  await call(() => deliverEvent(event, passcodes, Promise.resolve(endpoints)));
}

const PARALLEL_PUTS = 4;
