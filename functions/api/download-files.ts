import { Readable } from "node:stream";
import { systemClock } from "#shared/clock.ts";
import { resolveFileDownload, resolveRequestDownload } from "#shared/generation/download.ts";
import { openPdf, pdfSize } from "#shared/generation/file-store.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { contentDisposition, pdfFileName, zipContentDisposition } from "#shared/http/file-headers.ts";
import { streamingApiHandler } from "#shared/http/streaming-handler.ts";
import { zipEntryNames } from "#shared/zip/build-zip.ts";
import { zipLength, zipStream } from "#shared/zip/zip-stream.ts";

/** GET /v1/file/download/{requestId}[/{fileId}] (spec 4.6, 4.7), streamed from S3. */
export const handler = streamingApiHandler(async (req): Promise<ApiResult> => {
  const requestId = req.path("requestId");
  const fileId = req.event.pathParameters?.fileId;
  const workspaceId = req.principal.workspace.id;
  if (fileId !== undefined) {
    const file = await resolveFileDownload(requestId, fileId, workspaceId, systemClock);
    const pdf = await openPdf(file.s3Key!);
    return {
      status: 200,
      contentType: "application/pdf",
      stream: Readable.from(pdf.stream),
      contentLength: pdf.bytes,
      headers: { "Content-Disposition": contentDisposition(pdfFileName(file.fileName)), "File-ID": file.fileId },
    };
  }
  const { templateName, files } = await resolveRequestDownload(requestId, workspaceId, systemClock);
  const names = zipEntryNames(files.map((f) => f.fileName));
  // Each PDF is opened only when the archive reaches it: one file in flight at a time.
  const sizes = await Promise.all(files.map((f) => f.bytes ?? pdfSize(f.s3Key!)));
  const sources = files.map((f, i) => ({ name: names[i]!, size: sizes[i]!, open: async () => (await openPdf(f.s3Key!)).stream }));
  return {
    status: 200,
    contentType: "application/zip",
    stream: zipStream(sources),
    contentLength: zipLength(sources),
    headers: { "Content-Disposition": zipContentDisposition(templateName, requestId) },
  };
});
