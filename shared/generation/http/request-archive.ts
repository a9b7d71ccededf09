import type { Readable } from "node:stream";
import { type ArchiveLinkSettings, archiveLinkSettings, archiveUrl, servedFromS3 } from "./archive-link.ts";
import type { DownloadDeps } from "#shared/generation/store/index.ts";
import { zipContentDisposition } from "./file-headers.ts";

/** How a request's ZIP leaves: streamed, or (over `PLATEN_ZIP_REDIRECT_BYTES`) by a presigned S3 URL. */
export type RequestArchiveAnswer =
  | { location: string }
  | { stream: Readable; contentLength: number; contentDisposition: string };

let settings: ArchiveLinkSettings | undefined;

/**
 * The ZIP of a whole request by the download rules (404/409/422 as OpenAPI downloadRequest), for the API's
 * download route and the site's output history alike: the caller has authenticated and
 * knows the workspace owns the request. A ZIP too large for Lambda response streaming is
 * written once to S3 and answered with its presigned GET (archive-link.ts).
 */
export async function requestArchiveAnswer(
  requestId: string,
  workspaceId: string,
  deps: DownloadDeps,
): Promise<RequestArchiveAnswer> {
  settings ??= archiveLinkSettings();
  // The ZIP writer loads on first use: the sync function imports this room too, and its cold start skips it.
  const { openRequestArchive } = await import("./download-archive.ts");
  const archive = await openRequestArchive(requestId, workspaceId, deps);
  const contentDisposition = zipContentDisposition(archive.templateName, requestId);
  if (!servedFromS3(archive.contentLength, settings)) {
    return { stream: archive.stream, contentLength: archive.contentLength, contentDisposition };
  }
  const link = { ...archive, contentDisposition };
  return { location: await archiveUrl(link, { workspaceId, requestId }, deps.clock, settings) };
}
