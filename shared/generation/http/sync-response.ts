import type { GeneratedFile, SyncGeneration } from "#shared/generation/sync/index.ts";
import { einvoiceFileName, zipEntryNames } from "#shared/zip/entry-names.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { contentDisposition, fileMappingHeader, pdfFileName, zipContentDisposition } from "./file-headers.ts";

/** OpenAPI generateAsyncSingle: the file entry (passthrough only when supplied, passcode only now). */
export const fileEntry = (f: Pick<GeneratedFile, "fileId" | "fileName" | "passthrough" | "share">) => ({
  fileId: f.fileId,
  fileName: f.fileName,
  ...(f.passthrough && { passthrough: f.passthrough }),
  share: f.share,
});

/** Output-history screen of a request (OpenAPI generateAsyncSingle `url`, generateSyncSingle `File-URL`). */
export const outputHistoryUrl = (siteUrl: string, requestId: string) =>
  `${siteUrl}/output-history/${encodeURIComponent(requestId)}`;

/**
 * Builds the sync answer: PDF, ZIP, or (`response=json`) the identifiers body of OpenAPI generateSyncSingle
 * (`?response=json`).
 */
export async function syncResponse(
  result: SyncGeneration,
  opts: { mode: "single" | "multiple"; json: boolean; siteUrl: string; mappingMaxBytes: number },
): Promise<ApiResult> {
  const mapping = fileMappingHeader(result.files.map(fileEntry));
  const headers = {
    "File-URL": outputHistoryUrl(opts.siteUrl, result.requestId),
    "Request-Id": result.requestId,
    // A file answer was refused beforehand if too large (file-mapping-cap.ts); a JSON answer has it all in its body.
    ...(mapping.length <= opts.mappingMaxBytes && { "X-File-Mapping": mapping }),
    "X-Page-Count": String(result.files.reduce((n, f) => n + f.pageCount, 0)),
    "Cache-Control": "no-store",
  };
  if (opts.json) return { status: 200, headers, json: jsonBody(result, opts.siteUrl) };
  if (opts.mode === "single") {
    const file = result.files[0]!;
    return {
      status: 200,
      contentType: "application/pdf",
      body: file.pdf,
      headers: { ...headers, "Content-Disposition": contentDisposition(pdfFileName(file.fileName)) },
    };
  }
  const names = zipEntryNames(result.files.map((f) => f.fileName));
  // An e-invoice's XML sits beside its PDF. The ZIP writer loads on first use: a single's cold start skips it.
  const { zipBuffer } = await import("#shared/zip/zip-stream.ts");
  const zip = await zipBuffer(
    result.files.flatMap((f, i) => [
      { name: names[i]!, body: f.pdf },
      ...(f.einvoiceXml ? [{ name: einvoiceFileName(names[i]!), body: f.einvoiceXml }] : []),
    ]),
  );
  return {
    status: 200,
    contentType: "application/zip",
    body: zip,
    headers: { ...headers, "Content-Disposition": zipContentDisposition(result.designLabel, result.requestId) },
  };
}

/**
 * OpenAPI generateSyncSingle `?response=json` (share carries the whole share object: shareType as specified,
 * url, passcode once).
 */
function jsonBody(result: SyncGeneration, siteUrl: string) {
  return {
    requestId: result.requestId,
    fileUrl: outputHistoryUrl(siteUrl, result.requestId),
    files: result.files.map((f) => ({
      fileId: f.fileId,
      fileName: f.fileName,
      pageCount: f.pageCount,
      downloadPath: `/v1/file/download/${result.requestId}/${f.fileId}`,
      ...(f.passthrough && { passthrough: f.passthrough }),
      share: f.share,
    })),
  };
}
