import { systemClock } from "#shared/clock.ts";
import { resolveFileDownload, resolveRequestDownload } from "#shared/generation/download.ts";
import { getPdf } from "#shared/generation/file-store.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { contentDisposition, pdfFileName, zipContentDisposition } from "#shared/http/file-headers.ts";
import { buildZip, zipEntryNames } from "#shared/zip/build-zip.ts";

/** GET /v1/file/download/{requestId}[/{fileId}] (spec 4.6, 4.7). */
export const handler = apiHandler(async (req): Promise<ApiResult> => {
  const requestId = req.path("requestId");
  const fileId = req.event.pathParameters?.fileId;
  const workspaceId = req.principal.workspace.id;
  if (fileId !== undefined) {
    const file = await resolveFileDownload(requestId, fileId, workspaceId, systemClock);
    return {
      status: 200,
      contentType: "application/pdf",
      body: await getPdf(file.s3Key!),
      headers: { "Content-Disposition": contentDisposition(pdfFileName(file.fileName)), "File-ID": file.fileId },
    };
  }
  const { templateName, files } = await resolveRequestDownload(requestId, workspaceId, systemClock);
  const names = zipEntryNames(files.map((f) => f.fileName));
  const entries = await Promise.all(files.map(async (f, i) => ({ name: names[i]!, body: await getPdf(f.s3Key!) })));
  return {
    status: 200,
    contentType: "application/zip",
    body: await buildZip(entries),
    headers: { "Content-Disposition": zipContentDisposition(templateName, requestId) },
  };
});
