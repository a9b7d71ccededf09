import type { Role, SiteIdentity } from "./identity.ts";
import type { SiteRequest, SiteResult } from "./site-types.ts";

/** A logged-in visitor, or the redirect to the login page that brings them back here. */
export async function requireUser(
  req: SiteRequest,
  identity: SiteIdentity,
): Promise<{ userId: string } | { result: SiteResult }> {
  const userId = await identity.userOf(req.header("cookie"));
  if (userId) return { userId };
  return { result: { status: 303, redirect: identity.loginUrl(req.returnTo) } };
}

/** The visitor's role in a workspace, undefined for non-members (whose pages are 404). */
export const roleOf = (
  identity: SiteIdentity,
  workspaceId: string | undefined,
  userId: string,
): Promise<Role | undefined> => (workspaceId ? identity.roleIn(workspaceId, userId) : Promise.resolve(undefined));

/**
 * The workspace a workspace-wide page shows: `?workspace=` when the visitor is a member of
 * it, else their first workspace; undefined when they have none.
 */
export async function chosenWorkspace(req: SiteRequest, identity: SiteIdentity, userId: string) {
  const all = await identity.workspacesOf(userId);
  const wanted = req.query("workspace");
  const chosen = all.find((m) => m.workspaceId === wanted) ?? all[0];
  return { all, chosen };
}
