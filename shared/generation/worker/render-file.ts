import type { Clock } from "#shared/clock.ts";
import { findDesignVersion, loadBundle } from "#shared/designs/find-design-version.ts";
import type { Renderer } from "#shared/render/renderer.ts";
import { compiledBundleKey } from "#shared/render/template.ts";
import { permanentFileFailure, checkParams, templateFileOf } from "#shared/generation/requests/index.ts";
import {
  type FileRecord,
  type Outcome,
  pdfObjectKey,
  putEinvoiceXml,
  putPdf,
  getParams,
  paramsObjectKey,
  openProtection,
} from "#shared/generation/store/index.ts";
import { shareUrl } from "#shared/share-link.ts";
import { type SignerDeps, startDesignSigner } from "#shared/signing/design-signer.ts";
import {
  evaluateRecordFields,
  type KeepRecordDeps,
  keepRecord,
  liveRecordDeps,
  type RecordFields,
} from "#shared/records/index.ts";

export interface WorkerDeps {
  clock: Clock;
  renderer: Renderer;
  /** The signing of signed designs (shared/signing/README.md); absent: the deployment's own. */
  signing?: SignerDeps;
  /** `{site}`: the file's share URL, which its template may print (`file.share.url`), is built from it. */
  siteUrl: string;
  /** Where a record design's files are kept as records (shared/records/README.md); absent: the deployment's own. */
  records?: KeepRecordDeps;
}

/**
 * Renders a queued file to its outcome: the PDF is stored under a key derived from the
 * ids, so a retry overwrites the same object. A file that cannot render (bad params, a
 * failing template) fails alone; transient errors throw (the message is retried, then
 * dead-lettered). `onBrowser` is called when a browser is taken (fair-render.ts times renders from there).
 */
export async function produceFile(file: FileRecord, deps: WorkerDeps, onBrowser?: () => void): Promise<Outcome> {
  try {
    return await renderOnce(file, deps, onBrowser);
  } catch (err) {
    // A failure a retry cannot change (document-failure.ts: template errors, document limits, out of time,
    // data that cannot go into the PDF, a design that is gone) fails the file now, nothing counted, instead
    // of being retried until the sweeper gives up an hour later. Crashes, a busy renderer and storage errors
    // throw: the message is retried.
    const failure = permanentFileFailure(err);
    if (failure) return { status: "failed", ...failure };
    throw err;
  }
}

async function renderOnce(file: FileRecord, deps: WorkerDeps, onBrowser?: () => void): Promise<Outcome> {
  // Accepted before an archive: it renders (an archived design refuses only new requests).
  const design = await findDesignVersion(file.workspaceId, file.designId, file.version, { archived: "allow" });
  const params =
    file.paramsJson !== undefined
      ? (JSON.parse(file.paramsJson) as Record<string, unknown>)
      : await getParams(paramsObjectKey(file.workspaceId, file.requestId, file.fileId));
  // shared/generation/README.md#request-states-and-retention: params types are checked per file, so one bad
  // file fails alone.
  const { values, mismatches } = checkParams(design.manifest.parameters, params, "params");
  if (mismatches.length) {
    const fields = mismatches.map((m) => `${m.field} (expected ${m.expected})`).join(", ");
    return {
      status: "failed",
      errorCode: "PARAMS_TYPE_MISMATCH",
      errorMessage: `A params value has the wrong type: ${fields}.`,
    };
  }
  // A sealed value that does not open throws: the file is retried, then dead-lettered, and is
  // never rendered without the protection it was asked with.
  const protection =
    file.sealedProtection !== undefined ? await openProtection(file.sealedProtection, file) : undefined;
  // A signed design's identity is read while Chromium renders; a removed one fails the file (SIGNING_FAILED).
  const signature = design.manifest.signature;
  const signer = signature
    ? startDesignSigner(file.workspaceId, signature, deps.clock.now(), `${file.requestId}/${file.fileId}`, deps.signing)
    : undefined;
  // A record design's fields are evaluated after the template step (the e-invoice computed), before a
  // browser: a refusal fails the file with RECORD_FIELDS_INVALID (document-failure.ts), nothing billed.
  const recordSpec = design.manifest.record;
  let record: RecordFields | undefined;
  const rendered = await deps.renderer.renderPdf({
    bundle: await loadBundle(design),
    bundleKey: compiledBundleKey(file.workspaceId, design),
    params: values,
    // The e-invoice mapping reads the params as sent: every key, not only the schema's.
    mappingParams: params,
    // The record has all the 202 answer said of the file: no read beyond the ones above.
    file: templateFileOf({
      fileId: file.fileId,
      fileName: file.fileName,
      share: { url: shareUrl(deps.siteUrl, file.requestId, file.fileId) },
    }),
    title: file.fileName,
    passthrough: file.passthrough,
    ...(file.metadata && { metadata: file.metadata }),
    ...(protection && { protection }),
    // The wait for a browser (a busy batch) never eats the document's own time budget.
    budgetFrom: "browser",
    onBrowser,
    ...(recordSpec && {
      onPrepared: (einvoice) => {
        record = evaluateRecordFields(recordSpec, { params: values, einvoice });
      },
    }),
  });
  // Signing is the last step: an incremental update over everything else the PDF holds.
  const signed = signer && (await signer);
  const pdf = signed ? await signed.sign(rendered.pdf) : rendered.pdf;
  const s3Key = pdfObjectKey(file.workspaceId, file.requestId, file.fileId);
  // The XML first: a file whose PDF is stored has its e-invoice too.
  if (rendered.einvoiceXml) await putEinvoiceXml(s3Key, rendered.einvoiceXml);
  await putPdf(s3Key, pdf);
  // Kept before the file settles, once per file id (a retry answers the first record): a delivered file
  // never lacks its record. A throw retries the message like any storage error.
  if (record) await keepRecord(deps.records ?? (await liveRecordDeps(deps.clock)), recordedFileOf(file), record, pdf);
  return {
    status: "done",
    pageCount: rendered.pageCount,
    bytes: pdf.length,
    s3Key,
    ...(signed && { signature: signed.signature }),
  };
}

const recordedFileOf = (file: FileRecord) => ({
  workspaceId: file.workspaceId,
  designId: file.designId,
  version: file.version,
  requestId: file.requestId,
  fileId: file.fileId,
  fileName: file.fileName,
});
