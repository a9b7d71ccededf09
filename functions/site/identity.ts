import { config } from "#shared/aws/config.ts";
import { findMembership, listMembers, listMemberships } from "#shared/identity/memberships.ts";
import { listOAuthClients } from "#shared/identity/oauth-clients.ts";
import { readSession } from "#shared/identity/session.ts";
import { getUser } from "#shared/identity/users.ts";

export type Role = "admin" | "read";

/**
 * What the site needs from identity (its contract: `readSession`,
 * `findMembership`, `listMemberships`): who the visitor is, their roles, where to log in.
 * A port, so page tests can plug in an in-memory identity.
 */
export interface SiteIdentity {
  /** The logged-in user of the first-party session cookie, if any. */
  userOf(cookieHeader: string | undefined): Promise<string | undefined>;
  roleIn(workspaceId: string, userId: string): Promise<Role | undefined>;
  /** The user's e-mail address (invitations are by address). */
  emailOf(userId: string): Promise<string | undefined>;
  /** The user's workspaces and roles (output history and settings offer these). */
  workspacesOf(userId: string): Promise<{ workspaceId: string; role: Role }[]>;
  /** The workspace's members with their e-mail addresses (settings). */
  membersOf(workspaceId: string): Promise<{ userId: string; email: string; role: Role }[]>;
  /** The workspace's registered OAuth clients (settings). */
  clientsOf(workspaceId: string): Promise<{ clientId: string; name: string; isPublic: boolean }[]>;
  /** The login page, coming back to `returnTo` (a site path) afterwards. */
  loginUrl(returnTo: string): string;
}

/** The identity module's records and the signed session cookie of the login form. */
export const siteIdentity: SiteIdentity = {
  userOf: async (cookieHeader) => {
    // A deleted or signed-out user's still-signed cookie opens nothing (readSession checks).
    return (await readSession(cookieHeader))?.userId;
  },
  roleIn: async (workspaceId, userId) => (await findMembership(workspaceId, userId))?.role,
  emailOf: async (userId) => (await getUser(userId))?.email,
  workspacesOf: async (userId) =>
    (await listMemberships(userId)).map(({ workspaceId, role }) => ({ workspaceId, role })),
  membersOf: async (workspaceId) => {
    const members = await listMembers(workspaceId);
    const users = await Promise.all(members.map((m) => getUser(m.userId)));
    return members.map((m, i) => ({ userId: m.userId, email: users[i]?.email ?? m.userId, role: m.role }));
  },
  clientsOf: async (workspaceId) =>
    (await listOAuthClients(workspaceId)).map(({ clientId, name, isPublic }) => ({ clientId, name, isPublic })),
  loginUrl: (returnTo) => `${config().siteUrl}/login?return_to=${encodeURIComponent(returnTo)}`,
};
