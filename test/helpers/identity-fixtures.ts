import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importJWK, SignJWT } from "jose";
import { systemClock } from "#shared/clock.ts";
import { deriveKeys, type KeySeeds } from "#shared/identity/keys.ts";
import { putMembership, type Role } from "#shared/identity/memberships.ts";
import { createOAuthClient } from "#shared/identity/oauth-clients.ts";
import type { Scope } from "#shared/identity/scopes.ts";
import { createUser } from "#shared/identity/users.ts";
import type { RunningStack } from "./local-stack.ts";
import { tokenRequest } from "./oauth-http.ts";

/** A user with a known password and the given roles (after useStackEmulators). */
export async function makeUser(
  roles: Record<string, Role>,
  email = `u${Math.random().toString(36).slice(2)}@example.test`,
) {
  const password = `pw-${Math.random().toString(36).slice(2)}-long`;
  const user = await createUser({ email, password }, systemClock);
  for (const [workspaceId, role] of Object.entries(roles)) await putMembership({ workspaceId, userId: user.id, role });
  return { ...user, password };
}

/** A confidential client of a workspace (client credentials), with its one-time secret. */
export async function makeConfidentialClient(
  workspaceId: string,
  allowedScopes?: Scope[],
  redirectUris: string[] = [],
) {
  const { client, clientSecret } = await createOAuthClient(
    { workspaceId, name: "Test integration", isPublic: false, redirectUris, allowedScopes },
    systemClock,
  );
  return { ...client, clientSecret: clientSecret! };
}

/** A client-credentials access token (Basic authentication). */
export async function clientCredentialsToken(
  stack: RunningStack,
  client: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const res = await tokenRequest(
    stack,
    { grant_type: "client_credentials", ...(scope && { scope }) },
    { id: client.clientId, secret: client.clientSecret },
  );
  if (res.status !== 200) throw new Error(`client credentials ${res.status}: ${JSON.stringify(res.body)}`);
  return String(res.body.access_token);
}

/**
 * A token signed with the stack's own kept signing key but with claims of the test's
 * choosing: proves the API checks claims (audience, workspace) and not only signatures.
 */
export async function forgeToken(
  stack: RunningStack,
  claims: Record<string, unknown>,
  opts: { audience?: string; expiresIn?: string } = {},
): Promise<string> {
  const seeds = JSON.parse(readFileSync(join(stack.dataDir, "identity-keys.json"), "utf8")) as KeySeeds;
  const [jwk] = deriveKeys(seeds).signingKeys;
  const key = await importJWK(jwk!, "ES256");
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: jwk!.kid })
    .setIssuer(stack.localJson.authUrl)
    .setAudience(opts.audience ?? stack.localJson.apiBaseUrl)
    .setIssuedAt()
    .setExpirationTime(opts.expiresIn ?? "1h")
    .sign(key);
}
