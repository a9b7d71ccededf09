import { type FileRecord, getPdf } from "#shared/generation/store/index.ts";
import { once, type PageSource } from "./page-image-cache.ts";

/**
 * Where a generated file's page images are kept in the files bucket: under `pages/`, which a
 * lifecycle rule expires after a day (shared/definitions/buckets.ts), never under `files/`
 * with the PDF (README.md#where-the-images-live).
 */
export const FILE_PAGES_PREFIX = "pages/";

export const filePagesPrefix = (file: Pick<FileRecord, "workspaceId" | "requestId" | "fileId">) =>
  `${FILE_PAGES_PREFIX}${file.workspaceId}/${file.requestId}/${file.fileId}`;

/** A stored file (status `done`, with its `s3Key`) as a source of page images. */
export function filePageSource(file: FileRecord): PageSource {
  const key = file.s3Key;
  if (!key) throw new Error(`file ${file.requestId}/${file.fileId} has no stored PDF`);
  return { prefix: filePagesPrefix(file), readPdf: once(() => getPdf(key)) };
}
