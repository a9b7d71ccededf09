import type { Readable } from "node:stream";
import { einvoiceFileName, zipEntryNames } from "#shared/zip/entry-names.ts";
import { zipArchive } from "#shared/zip/zip-stream.ts";
import { resolveRequestDownload } from "#shared/generation/reads/index.ts";
import { type DownloadDeps, einvoiceSizes, openEinvoiceXml, openPdf, pdfSize } from "#shared/generation/store/index.ts";

/** An XML the listing just found; gone by now only if the request expired meanwhile. */
async function openXml(pdfKey: string): Promise<{ stream: AsyncIterable<Uint8Array> }> {
  const xml = await openEinvoiceXml(pdfKey);
  if (!xml) throw new Error("the e-invoice XML disappeared while the archive was written");
  return xml;
}

/**
 * The ZIP of a whole request (OpenAPI downloadRequest) as a stream of known length, by the rules of
 * `resolveRequestDownload`: each PDF is opened only when the archive reaches it, so one
 * file is in flight at a time. Shared by the API download and the site's output history.
 */
export async function openRequestArchive(
  requestId: string,
  workspaceId: string,
  deps: DownloadDeps,
): Promise<{ templateName: string; stream: Readable; contentLength: number }> {
  const { templateName, files } = await resolveRequestDownload(requestId, workspaceId, deps);
  const names = zipEntryNames(files.map((f) => f.fileName));
  const [sizes, xmlSizes] = await Promise.all([
    Promise.all(files.map((f) => f.bytes ?? pdfSize(f.s3Key!))),
    einvoiceSizes(workspaceId, requestId),
  ]);
  // An e-invoice's XML sits beside its PDF (one listing of the request's objects finds them all).
  const sources = files.flatMap((f, i) => {
    const pdf = { name: names[i]!, size: sizes[i]!, open: async () => (await openPdf(f.s3Key!)).stream };
    const xmlSize = xmlSizes.get(f.s3Key!);
    if (xmlSize === undefined) return [pdf];
    const xml = {
      name: einvoiceFileName(names[i]!),
      size: xmlSize,
      open: async () => (await openXml(f.s3Key!)).stream,
    };
    return [pdf, xml];
  });
  const { stream, length } = await zipArchive(sources);
  return { templateName, stream, contentLength: length };
}
