import type { Readable } from "node:stream";
import { zipEntryNames } from "#shared/zip/entry-names.ts";
import { zipArchive } from "#shared/zip/zip-stream.ts";
import { resolveRequestDownload } from "#shared/generation/reads/index.ts";
import { openPdf, pdfSize, type DownloadDeps } from "#shared/generation/store/index.ts";

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
  const sizes = await Promise.all(files.map((f) => f.bytes ?? pdfSize(f.s3Key!)));
  const sources = files.map((f, i) => ({
    name: names[i]!,
    size: sizes[i]!,
    open: async () => (await openPdf(f.s3Key!)).stream,
  }));
  const { stream, length } = await zipArchive(sources);
  return { templateName, stream, contentLength: length };
}
