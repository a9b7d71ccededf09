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
 * downloadEinvoice), streamed from S3. A request ZIP over `PLATEN_ZIP_REDIRECT_BYTES` is answered 302 to a presigned GET instead (README
 * deviation), after the same authentication and ownership checks.
 */
export const handler = apiHandler({ streaming: true }, async function handleDownloadFiles(req): Promise<ApiResult> {
  const requestId = req.path("requestId");
  const fileId = req.event.pathParameters?.fileId;
  const workspaceId = req.principal.workspace.id;
  if (fileId !== undefined) {
    const file = await resolveFileDownload(requestId, fileId, workspaceId, liveRequestDeps);
    if (!req.event.resource.endsWith("/einvoice")) {
      return fileAnswer(file, "application/pdf", pdfFileName(file.fileName), await openPdf(file.s3Key!));
    }
    // OpenAPI downloadEinvoice: 404 for a file whose design writes no e-invoice.
    const xml = await openEinvoiceXml(file.s3Key!);
    if (!xml) throw new PlatenError("FILE_NOT_FOUND");
    return fileAnswer(file, "application/xml", einvoiceFileName(file.fileName), xml);
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

/** One stored object of a file, streamed as an attachment under the file's name. */
function fileAnswer(
  file: FileRecord,
  contentType: string,
  name: string,
  object: { stream: AsyncIterable<Uint8Array>; bytes: number },
): ApiResult {
  return {
    status: 200,
    contentType,
    stream: Readable.from(object.stream),
    contentLength: object.bytes,
    headers: { "Content-Disposition": contentDisposition(name), "File-ID": file.fileId },
  };
}
