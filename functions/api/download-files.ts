import { Readable } from "node:stream";
import { archiveLinkSettings, archiveUrl, servedFromS3 } from "#shared/generation/archive-link.ts";
import { resolveFileDownload } from "#shared/generation/download.ts";
import { openRequestArchive } from "#shared/generation/download-archive.ts";
import { openPdf } from "#shared/generation/file-store.ts";
import { liveRequestDeps } from "#shared/generation/request-adapters.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { contentDisposition, pdfFileName, zipContentDisposition } from "#shared/http/file-headers.ts";
import { streamingApiHandler } from "#shared/http/streaming-handler.ts";

const linkSettings = archiveLinkSettings();

/**
 * GET /v1/file/download/{requestId}[/{fileId}] (spec 4.6, 4.7), streamed from S3. A request
 * ZIP over `PLATEN_ZIP_REDIRECT_BYTES` is answered 302 to a presigned GET instead (README
 * deviation), after the same authentication and ownership checks.
 */
export const handler = streamingApiHandler(async function handleDownloadFiles(req): Promise<ApiResult> {
  const requestId = req.path("requestId");
  const fileId = req.event.pathParameters?.fileId;
  const workspaceId = req.principal.workspace.id;
  if (fileId !== undefined) {
    const file = await resolveFileDownload(requestId, fileId, workspaceId, liveRequestDeps);
    const pdf = await openPdf(file.s3Key!);
    return {
      status: 200,
      contentType: "application/pdf",
      stream: Readable.from(pdf.stream),
      contentLength: pdf.bytes,
      headers: { "Content-Disposition": contentDisposition(pdfFileName(file.fileName)), "File-ID": file.fileId },
    };
  }
  const archive = await openRequestArchive(requestId, workspaceId, liveRequestDeps);
  const disposition = zipContentDisposition(archive.templateName, requestId);
  if (servedFromS3(archive.contentLength, linkSettings)) {
    const link = { ...archive, contentDisposition: disposition };
    const location = await archiveUrl(link, { workspaceId, requestId }, liveRequestDeps.clock, linkSettings);
    return {
      status: 302,
      contentType: "text/plain; charset=utf-8",
      body: Buffer.alloc(0),
      headers: { Location: location, "Cache-Control": "no-store" },
    };
  }
  return {
    status: 200,
    contentType: "application/zip",
    stream: archive.stream,
    contentLength: archive.contentLength,
    headers: { "Content-Disposition": disposition },
  };
});
