import { newId } from "#shared/ids.ts";
import type { TemplateFile } from "#shared/render/template-file.ts";
import type { GenerationRequest } from "./request-schema.ts";
import { type Share, shareTypes, shareUrl } from "#shared/share-link.ts";
import { generatePasscode, hashPasscode } from "./passcodes.ts";

/** One file of a request as planned before anything renders (OpenAPI generateAsyncSingle file entry). */
export interface PlannedFile {
  fileId: string;
  fileName: string;
  passthrough?: Record<string, string | number>;
  /** With the plaintext passcode: it is answered once and never stored. */
  share: Share;
}

/** A planned file and the hash its record keeps of its passcode. */
export interface PlannedRecord {
  file: PlannedFile;
  passcodeHash?: string;
}

/**
 * Plans the files of a request, sync and async alike: ids, share URLs and passcodes. The
 * plan itself is immediate (the answer's entries); the passcode hashes for the records
 * come from `hashes`, computed off the event loop (passcodes.ts), so a caller may render
 * while they are made.
 */
export function planFiles(
  request: GenerationRequest,
  requestId: string,
  siteUrl: string,
): { files: PlannedFile[]; records(): Promise<PlannedRecord[]> } {
  const files = request.contents.map((c): PlannedFile => {
    const fileId = newId();
    const passcode = c.passcodeEnabled ? generatePasscode() : undefined;
    const share: Share = {
      shareType: shareTypes[c.shareType],
      url: shareUrl(siteUrl, requestId, fileId),
      passcodeEnabled: c.passcodeEnabled,
      ...(passcode && { passcode }),
    };
    return { fileId, fileName: c.fileName, ...(c.passthrough && { passthrough: c.passthrough }), share };
  });
  const records = () =>
    Promise.all(
      files.map(async (file) => ({
        file,
        ...(file.share.passcode && { passcodeHash: await hashPasscode(file.share.passcode) }),
      })),
    );
  return { files, records };
}

/**
 * What the template sees of a planned file as `file` (shared/render/README.md#what-a-template-sees): never the
 * passcode, which is answered once and would otherwise be printed into the PDF for anyone holding it.
 */
export const templateFileOf = (f: { fileId: string; fileName: string; share: Pick<Share, "url"> }): TemplateFile => ({
  id: f.fileId,
  name: f.fileName,
  share: { url: f.share.url },
  preview: false,
});
