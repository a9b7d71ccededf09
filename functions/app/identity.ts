import { config } from "#shared/aws/config.ts";

export type Role = "admin" | "read";

/**
 * What the site needs from identity (issue 12's contract: `readSession`,
 * `findMembership`): who the visitor is, their role in a workspace, and where to log in.
 */
export interface SiteIdentity {
  /** The logged-in user of the first-party session cookie, if any. */
  userOf(cookieHeader: string | undefined): Promise<string | undefined>;
  roleIn(workspaceId: string, userId: string): Promise<Role | undefined>;
  /** The user's workspaces and roles (output history and settings offer these). */
  workspacesOf(userId: string): Promise<{ workspaceId: string; role: Role }[]>;
  /** The user's e-mail address (invitations are by address). */
  emailOf(userId: string): Promise<string | undefined>;
  /** The workspace's members with their e-mail addresses (settings). */
  membersOf(workspaceId: string): Promise<{ userId: string; email: string; role: Role }[]>;
  /** The workspace's registered OAuth clients (settings). */
  clientsOf(workspaceId: string): Promise<{ clientId: string; name: string; isPublic: boolean }[]>;
  /** The login page, coming back to `returnTo` (a site path) afterwards. */
  loginUrl(returnTo: string): string;
}

/**
 * Until the identity module exists there are no users and no sessions: every visitor is
 * anonymous, which is exactly what the site then shows (public files, docs).
 */
export const siteIdentity: SiteIdentity = {
  userOf: async () => undefined,
  roleIn: async () => undefined,
  emailOf: async () => undefined,
  workspacesOf: async () => [],
  membersOf: async () => [],
  clientsOf: async () => [],
  loginUrl: (returnTo) => `${config().authUrl}/login?return_to=${encodeURIComponent(`${config().siteUrl}${returnTo}`)}`,
};
