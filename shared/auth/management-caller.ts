import { PlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import type { HeaderReader, Principal } from "./authenticate.ts";
import type { ManagementCaller } from "./management-access.ts";
import { accessText } from "./access-text.ts";

/** What resolving a management caller reads (the identity contract's functions). */
export interface CallerDeps {
  authenticate(header: HeaderReader): Promise<Principal>;
  readSession(cookieHeader: string | undefined): Promise<{ userId: string } | undefined>;
  /** Whether the header carries a session cookie at all (valid or not): other cookies are no credential. */
  hasSessionCookie(cookieHeader: string | undefined): boolean;
  findMembership(workspaceId: string, userId: string): Promise<{ role: "admin" | "read" } | undefined>;
  getWorkspace(workspaceId: string): Promise<Workspace | undefined>;
}

/**
 * Who calls a management route. An `Authorization` header or an `appkey` is judged by
 * `authenticate` as on every route (both at once → 401; an appkey principal is refused
 * later by authorizeManagement with 401); else a first-party login session cookie, whose
 * role is the membership in the path's workspace; nothing at all → 412 (see README.md#authentication).
 */
export async function resolveManagementCaller(
  header: HeaderReader,
  pathWorkspaceId: string | undefined,
  deps: CallerDeps,
): Promise<ManagementCaller> {
  if (header("authorization") !== undefined || header("appkey") !== undefined)
    return (await deps.authenticate(header)) as ManagementCaller;
  const session = header("cookie") === undefined ? undefined : await deps.readSession(header("cookie"));
  if (session) return sessionCaller(session.userId, pathWorkspaceId, deps);
  if (deps.hasSessionCookie(header("cookie")))
    throw new PlatenError("INVALID_CREDENTIALS", {
      details: [
        {
          text: accessText.sessionInvalid,
        },
      ],
    });
  throw new PlatenError("AUTH_HEADER_MISSING");
}

/**
 * A login session acting on the path's workspace. An unknown workspace answers like one
 * the user is not a member of (403), so workspace ids cannot be probed.
 */
async function sessionCaller(
  userId: string,
  pathWorkspaceId: string | undefined,
  deps: CallerDeps,
): Promise<ManagementCaller> {
  if (pathWorkspaceId === undefined) {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        {
          field: "workspaceId",
          text: accessText.sessionNamesWorkspace,
        },
      ],
    });
  }
  const [workspace, membership] = await Promise.all([
    deps.getWorkspace(pathWorkspaceId),
    deps.findMembership(pathWorkspaceId, userId),
  ]);
  if (!workspace || !membership)
    throw new PlatenError("WORKSPACE_ROLE_DENIED", {
      details: [
        {
          text: accessText.notMember,
        },
      ],
    });
  return { workspace, method: "session", userId, role: membership.role };
}

/**
 * Cross-site request forgery guard for cookie-authenticated changes: a browser always sends
 * `Origin` on a cross-origin POST/PATCH/DELETE, so one that names another site than the
 * service's own is refused (403 ACCESS_DENIED). Token callers carry no ambient credential.
 */
export function checkSessionOrigin(
  caller: ManagementCaller,
  method: string,
  origin: string | undefined,
  ownOrigins: string[],
): void {
  if (caller.method !== "session" || method === "GET" || origin === undefined) return;
  if (!ownOrigins.includes(origin)) {
    throw new PlatenError("ACCESS_DENIED", {
      details: [
        {
          text: accessText.sessionFirstPartyOnly,
        },
      ],
    });
  }
}
