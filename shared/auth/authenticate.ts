import { PlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { findWorkspaceByAppKey } from "#shared/workspaces/workspace-store.ts";
import { isWellFormedAppKey } from "./app-key.ts";

/** Header lookup that ignores case, as HTTP does. */
export type HeaderReader = (name: string) => string | undefined;

export interface Principal {
  workspace: Workspace;
  method: "appkey" | "bearer";
}

/**
 * spec 5 / 5.1: `appkey` or `Authorization: Bearer`. Missing or malformed appkey → 412,
 * wrong key or workspace-header mismatch → 401. Bearer tokens answer 401 until the OAuth
 * issue lands (no token can be valid yet).
 */
export async function authenticate(header: HeaderReader): Promise<Principal> {
  const appKey = header("appkey");
  const authorization = header("authorization");
  if (appKey === undefined && authorization === undefined) throw new PlatenError("AUTH_HEADER_MISSING");
  if (appKey !== undefined) {
    if (!isWellFormedAppKey(appKey.trim())) throw new PlatenError("AUTH_HEADER_MISSING");
    const workspace = await findWorkspaceByAppKey(appKey.trim());
    if (!workspace) throw new PlatenError("INVALID_CREDENTIALS");
    return checkWorkspaceHeader({ workspace, method: "appkey" }, header("x-workspace-id"));
  }
  throw new PlatenError("INVALID_CREDENTIALS");
}

function checkWorkspaceHeader(principal: Principal, workspaceHeader: string | undefined): Principal {
  if (workspaceHeader !== undefined && workspaceHeader.trim() !== principal.workspace.id) {
    throw new PlatenError("INVALID_CREDENTIALS");
  }
  return principal;
}
