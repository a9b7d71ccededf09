import type { Clock } from "#shared/clock.ts";
import { newId } from "#shared/ids.ts";
import { putMembership } from "#shared/identity/memberships.ts";
import { createOAuthClient } from "#shared/identity/oauth-clients.ts";
import { createUser } from "#shared/identity/users.ts";
import type { LocalJson } from "./seed.ts";

/** The redirect URI of the seeded public client (README "Try it"). */
export const LOCAL_REDIRECT_URI = "http://127.0.0.1:8765/callback";

/**
 * One admin user per seeded workspace (`<workspace>@platen.local`, random password) and one
 * public client in the first workspace, for the code flow with PKCE. Passwords are stored
 * hashed; local.json is the only place the seeded ones can be read again.
 */
export async function seedIdentity(
  workspaces: Pick<LocalJson["workspaces"][number], "id" | "name">[],
  deps: { clock: Clock; log(msg: string): void },
): Promise<Pick<LocalJson, "users" | "oauthClients">> {
  const users: LocalJson["users"] = [];
  for (const ws of workspaces) {
    const password = newId(20);
    const user = await createUser(
      { email: `${ws.name.toLowerCase()}@platen.local`, password, name: `${ws.name} admin` },
      deps.clock,
    );
    await putMembership({ workspaceId: ws.id, userId: user.id, role: "admin" });
    deps.log(`seeded user ${user.email} (admin of ${ws.name})`);
    users.push({ id: user.id, email: user.email, password, workspaceIds: [ws.id] });
  }
  const oauthClients: LocalJson["oauthClients"] = [];
  if (workspaces[0]) {
    const input = {
      workspaceId: workspaces[0].id,
      name: "Local client",
      isPublic: true,
      redirectUris: [LOCAL_REDIRECT_URI],
    };
    const { client } = await createOAuthClient(input, deps.clock);
    deps.log(`seeded public OAuth client ${client.clientId} (redirect ${LOCAL_REDIRECT_URI})`);
    oauthClients.push({ clientId: client.clientId, isPublic: true, redirectUris: client.redirectUris });
  }
  return { users, oauthClients };
}
