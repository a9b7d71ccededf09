import { authenticate } from "#shared/auth/authenticate.ts";
import type { ManagementCaller } from "#shared/auth/management-access.ts";
import { type CallerDeps, checkSessionOrigin, resolveManagementCaller } from "#shared/auth/management-caller.ts";
import { config } from "#shared/aws/config.ts";
import { findMembership } from "#shared/identity/memberships.ts";
import { readSession, SESSION_COOKIE } from "#shared/identity/session.ts";
import { cookieValue } from "#shared/web/cookies.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import type { ApiRequest } from "./api-types.ts";

/** The identity contract's functions, as this container uses them to resolve a token or a session. */
export const callerDeps: CallerDeps = {
  authenticate: (header) => authenticate(header),
  readSession,
  hasSessionCookie: (cookieHeader) => cookieValue(cookieHeader, SESSION_COOKIE) !== undefined,
  findMembership,
  getWorkspace,
};

/**
 * The admission of a route whose auth is `bearer-or-session` (management and design API): a
 * Bearer token, or the first-party login session acting on the workspace the request names (the
 * management routes' path `workspaceId`, the design API's `X-Workspace-Id`); an appkey is resolved too and refused by the
 * route's authorization (401). A session's change must come from one of the service's own
 * origins (the CSRF guard). Authorization and the rate class follow in `grantedHandler`, once
 * the route's operation is known.
 */
export async function tokenOrSession(req: Pick<ApiRequest, "event" | "header">): Promise<ManagementCaller> {
  // Management routes live under /workspace and name it in the path only; the design API's paths carry none.
  const resource = (req.event.resource ?? req.event.path ?? "").replace(/^\/v1(?=\/)/, "");
  const workspaceId = resource.startsWith("/workspace")
    ? (req.event.pathParameters?.workspaceId ?? undefined)
    : req.header("x-workspace-id")?.trim();
  const caller = await resolveManagementCaller(req.header, workspaceId, callerDeps);
  checkSessionOrigin(caller, req.event.httpMethod, req.header("origin"), ownOrigins());
  return caller;
}

/** Origins of the service's own pages and APIs (the CSRF guard's allow-list). */
export function ownOrigins(): string[] {
  const { siteUrl, baseUrl, authUrl } = config();
  return [siteUrl, baseUrl, authUrl].flatMap((u) => {
    try {
      return [new URL(u).origin];
    } catch {
      return [];
    }
  });
}
