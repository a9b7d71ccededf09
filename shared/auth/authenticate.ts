import { PlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { findWorkspaceByAppKey } from "#shared/workspaces/workspace-store.ts";
import { isWellFormedAppKey } from "#shared/workspaces/app-key.ts";

/** Header lookup that ignores case, as HTTP does. */
export type HeaderReader = (name: string) => string | undefined;

/** Who is calling (the contract management and site code builds on). */
export interface Principal {
  /** The credential's workspace (the appkey's, the token's). */
  workspace: Workspace;
  method: "appkey" | "bearer" | "session";
  /** Bearer (code flow) and session; absent for client credentials. */
  userId?: string;
  /** Bearer: the OAuth client that obtained the token. */
  clientId?: string;
  /** Bearer: granted scopes. */
  scopes?: string[];
  /** Bearer: how the token's grant began. */
  grant?: "authorization_code" | "client_credentials";
  /** Bearer with a user: that user's current role in `workspace`. */
  role?: "admin" | "read";
}

export interface AuthenticateOptions {
  /**
   * Bearer tokens must carry one of these scopes (shared/identity/README.md#scopes: `pdf:generate` on
   * generation).
   */
  requiredScopes?: readonly string[];
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * README.md#authentication: `appkey` or `Authorization: Bearer`. Missing or malformed appkey → 412,
 * wrong key or token, or workspace-header mismatch → 401. Both an appkey and a Bearer
 * token on one request (the spec is silent) → 401: two credentials that may name different
 * workspaces and rights are refused rather than one of them silently winning. An
 * `Authorization` header of another scheme beside an appkey is not a credential here and
 * leaves the appkey in charge.
 */
export async function authenticate(header: HeaderReader, opts: AuthenticateOptions = {}): Promise<Principal> {
  const appKey = header("appkey");
  const authorization = header("authorization");
  if (appKey === undefined && authorization === undefined) throw new PlatenError("AUTH_HEADER_MISSING");
  const bearer = authorization !== undefined ? BEARER.exec(authorization)?.[1] : undefined;
  if (appKey !== undefined && bearer !== undefined) throw new PlatenError("INVALID_CREDENTIALS");
  if (appKey !== undefined) {
    if (!isWellFormedAppKey(appKey.trim())) throw new PlatenError("AUTH_HEADER_MISSING");
    const workspace = await findWorkspaceByAppKey(appKey.trim());
    if (!workspace) throw new PlatenError("INVALID_CREDENTIALS");
    return checkWorkspaceHeader({ workspace, method: "appkey" }, header("x-workspace-id"));
  }
  if (bearer === undefined) throw new PlatenError("INVALID_CREDENTIALS");
  // Loaded on the first Bearer request: containers that only see appkeys never load jose.
  const { authenticateBearer } = await import("./bearer.ts");
  return authenticateBearer(bearer, header("x-workspace-id"), opts.requiredScopes);
}

function checkWorkspaceHeader(principal: Principal, workspaceHeader: string | undefined): Principal {
  if (workspaceHeader !== undefined && workspaceHeader.trim() !== principal.workspace.id) {
    throw new PlatenError("INVALID_CREDENTIALS");
  }
  return principal;
}
