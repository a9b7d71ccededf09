import { type Environment, environment, positiveInt } from "#shared/config/settings.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type GenerationRequest, PASSCODE_LENGTH } from "#shared/generation/requests/index.ts";
import { shareTypes, shareUrl } from "#shared/share-link.ts";
import { fileMappingHeader } from "./file-headers.ts";
import { fileEntry } from "./sync-response.ts";

/**
 * The largest `X-File-Mapping` (OpenAPI generateSyncMultiple) a sync answer carries, in bytes of the header
 * value. Proxies, API Gateway and HTTP clients cap response headers (Node's default is
 * 16 KiB for all of them together); a 100-file request with ordinary names needs ~27 KB,
 * with 20-character Japanese names and passcodes ~42 KB.
 */
export const DEFAULT_FILE_MAPPING_MAX_BYTES = 64 * 1024;

/** `PLATEN_FILE_MAPPING_MAX_BYTES`, a positive integer (fails fast otherwise). */
export function fileMappingMaxBytes(env: Environment = environment()): number {
  return positiveInt(env, "PLATEN_FILE_MAPPING_MAX_BYTES") ?? DEFAULT_FILE_MAPPING_MAX_BYTES;
}

/** Ids and passcodes are base62 of fixed length: placeholders of that length encode to the same size. */
const PLACEHOLDER_ID = "0".repeat(16);
const PLACEHOLDER_PASSCODE = "0".repeat(PASSCODE_LENGTH);

/**
 * The exact length the request's `X-File-Mapping` will have, known before anything renders:
 * it depends only on file names, passthrough, share settings and fixed-length ids.
 */
export function predictedFileMappingBytes(request: GenerationRequest, siteUrl: string): number {
  const url = shareUrl(siteUrl, PLACEHOLDER_ID, PLACEHOLDER_ID);
  const entries = request.contents.map((c) =>
    fileEntry({
      fileId: PLACEHOLDER_ID,
      fileName: c.fileName,
      ...(c.passthrough && { passthrough: c.passthrough }),
      share: {
        shareType: shareTypes[c.shareType],
        url,
        passcodeEnabled: c.passcodeEnabled,
        ...(c.passcodeEnabled && { passcode: PLACEHOLDER_PASSCODE }),
      },
    }),
  );
  return fileMappingHeader(entries).length;
}

/**
 * 400 `FILE_MAPPING_TOO_LARGE` for a sync request answered with the file itself whose
 * mapping header would exceed `maxBytes`: refused before any page is reserved or rendered.
 * `?response=json` carries the same entries in the body and is never refused.
 */
export function checkFileMappingSize(request: GenerationRequest, siteUrl: string, maxBytes: number): void {
  const size = predictedFileMappingBytes(request, siteUrl);
  if (size > maxBytes) throw new PlatenError("FILE_MAPPING_TOO_LARGE", { vars: { size, limit: maxBytes } });
}
