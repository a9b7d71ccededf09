import { Readable } from "node:stream";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type FileRecord, liveRequestDeps, openEinvoiceXml, openPdf } from "#shared/generation/store/index.ts";
import { einvoiceFileName } from "#shared/zip/entry-names.ts";
import { resolveFileDownload } from "#shared/generation/reads/index.ts";
import { contentDisposition, pdfFileName, requestArchiveAnswer } from "#shared/generation/http/index.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { apiHandler } from "#shared/http/api-handler.ts";

/**
 * GET /v1/file/download/{requestId}[/{fileId}[/einvoice]] (OpenAPI downloadRequest, downloadFile,
 * downloadEinvoice), streamed from S3. A
 * request ZIP over `PLATEN_ZIP_REDIRECT_BYTES` is answered 302 to a presigned GET instead (README
 * deviation), after the same authentication and ownership checks.
 */
export const handler = apiHandler({ streaming: true }, async function handleDownloadFiles(req): Promise<ApiResult> {
  const requestId = req.path("requestId");
  const fileId = req.event.pathParameters?.fileId;
  const workspaceId = req.principal.workspace.id;
  if (fileId !== undefined) {
    const file = await resolveFileDownload(requestId, fileId, workspaceId, liveRequestDeps);
    if (req.event.resource.endsWith("/einvoice")) return einvoiceAnswer(file);
    const pdf = await openPdf(file.s3Key!);
    return {
      status: 200,
      contentType: "application/pdf",
      stream: Readable.from(pdf.stream),
      contentLength: pdf.bytes,
      headers: { "Content-Disposition": contentDisposition(pdfFileName(file.fileName)), "File-ID": file.fileId },
    };
  }
  const answer = await requestArchiveAnswer(requestId, workspaceId, liveRequestDeps);
  if ("location" in answer) {
    return {
      status: 302,
      contentType: "text/plain; charset=utf-8",
      body: Buffer.alloc(0),
      headers: { Location: answer.location, "Cache-Control": "no-store" },
    };
  }
  return {
    status: 200,
    contentType: "application/zip",
    stream: answer.stream,
    contentLength: answer.contentLength,
    headers: { "Content-Disposition": answer.contentDisposition },
  };
});

/** A file's e-invoice XML (OpenAPI downloadEinvoice): 404 for a file whose design writes none. */
async function einvoiceAnswer(file: FileRecord): Promise<ApiResult> {
  const xml = await openEinvoiceXml(file.s3Key!);
  if (!xml) throw new PlatenError("FILE_NOT_FOUND");
  return {
    status: 200,
    contentType: "application/xml",
    stream: Readable.from(xml.stream),
    contentLength: xml.bytes,
    headers: { "Content-Disposition": contentDisposition(einvoiceFileName(file.fileName)), "File-ID": file.fileId },
  };
}
