import { systemClock } from "#shared/clock.ts";
import { type FileRecord, getFileRecord } from "#shared/generation/store/index.ts";
import { whenStored } from "#shared/generation/reads/index.ts";
import { isId } from "#shared/ids.ts";
import { decideFileAccess, type FileAccess } from "#shared/site/file-access.ts";
import { dynamoInvitationStore } from "#shared/site/invitation-store.ts";
import { grantCookieName, verifyGrant } from "#shared/site/passcode-grant.ts";
import { siteSecret } from "#shared/site/site-secret.ts";
import type { Role, SiteIdentity } from "./identity.ts";
import type { SiteRequest } from "./site-types.ts";

/** One visit of a file's pages: the record, the visitor and what they may see. */
export interface FileVisit {
  requestId: string;
  fileId: string;
  file: FileRecord | undefined;
  userId?: string;
  role?: Role;
  access: FileAccess;
}

export const nowSeconds = () => Math.floor(systemClock.now().getTime() / 1000);

/**
 * Loads the file and decides access (shared/site/file-access.ts). Malformed ids never
 * reach the store; they are as hidden as unknown ones. A sync file is answered before it
 * is stored, so its `share.url` can be opened while it is still `storing`: for a visitor
 * who may see it, the record is read again the way the API's download reads it
 * (whenStored: re-read for up to 3 s, and one whose function died before storing it reads
 * as failed). Anyone else is answered at once, without the wait.
 */
export async function visitFile(req: SiteRequest, identity: SiteIdentity): Promise<FileVisit> {
  const { requestId = "", fileId = "" } = req.params;
  const userId = await identity.userOf(req.header("cookie"));
  let file = isId(requestId) && isId(fileId) ? await getFileRecord(requestId, fileId) : undefined;
  const role = file && userId ? await identity.roleIn(file.workspaceId, userId) : undefined;
  const invited = Boolean(
    file &&
      userId &&
      file.shareType === "invited" &&
      !role &&
      (await dynamoInvitationStore.isInvited(file, await identity.emailOf(userId))),
  );
  const passcodeGranted = Boolean(
    file?.passcodeHash &&
      verifyGrant(
        await siteSecret(),
        { requestId, fileId, passcodeHash: file.passcodeHash },
        req.cookie(grantCookieName(fileId)),
        nowSeconds(),
      ),
  );
  const access = decideFileAccess(file, { role, invited, passcodeGranted }, nowSeconds());
  // Who sees the file is decided by fields storing never changes: only such a visitor waits.
  if (access.kind === "show" && file?.status === "storing") file = await whenStoredFile(file);
  return { requestId, fileId, file, userId, role, access };
}

/** The record once stored (or failed, or still storing after the wait), read the API download's way. */
async function whenStoredFile(first: FileRecord): Promise<FileRecord> {
  const [file] = await whenStored(async () => {
    const record = await getFileRecord(first.requestId, first.fileId);
    return record ? [record] : [];
  }, systemClock);
  return file ?? first;
}
