import { errors as joseErrors, type JWTPayload, jwtVerify } from "jose";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { findMembership } from "#shared/identity/memberships.ts";
import { getOAuthClient } from "#shared/identity/oauth-clients.ts";
import { isGrantActive } from "#shared/identity/oauth-keys.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import type { Principal } from "./authenticate.ts";
import { remoteKeySet } from "./jwks-cache.ts";

/**
 * The authorization server's public keys, fetched from `{auth_url}/jwks` on first use and kept for
 * minutes (jwks-cache.ts): a removed signing key stops being trusted soon, and jose refetches at once
 * (at most every 30 s) for a `kid` it does not know, so a rotation needs no wait.
 */
let keySet: ReturnType<typeof remoteKeySet> | undefined;
const keys = () => (keySet ??= remoteKeySet(new URL(`${config().authUrl}/jwks`)));

const denied = (cause?: unknown) => new PlatenError("INVALID_CREDENTIALS", { cause });

/** Signature, issuer, audience `{base_url}`, expiry and type of an access token; any failure → 401. */
async function verifyToken(token: string): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, keys(), {
      issuer: config().authUrl,
      audience: config().baseUrl,
      algorithms: ["ES256"],
      typ: "at+jwt",
      // The service clock (tests move it to expire tokens without waiting).
      currentDate: systemClock.now(),
    });
    return payload;
  } catch (err) {
    // The key set unreachable is our failure (500), not the caller's.
    if (err instanceof joseErrors.JOSEError && !(err instanceof joseErrors.JWKSTimeout)) throw denied(err);
    throw err;
  }
}

/**
 * README.md#authentication for `Authorization: Bearer`: a valid JWT of `{auth_url}` for `{base_url}`,
 * bound to a workspace that exists and matches `x-workspace-id`, carrying one of the
 * route's required scopes, from a grant that is not revoked and a client that is still
 * registered → the principal; otherwise 401. A user who is no longer a member of the
 * token's workspace → 403 WORKSPACE_ROLE_DENIED (re-authorizing does not help).
 */
export async function authenticateBearer(
  token: string,
  workspaceHeader: string | undefined,
  requiredScopes: readonly string[] = [],
): Promise<Principal> {
  const claims = await verifyToken(token);
  const workspaceId = typeof claims.workspace_id === "string" ? claims.workspace_id : undefined;
  const clientId = typeof claims.client_id === "string" ? claims.client_id : undefined;
  if (!workspaceId || !clientId) throw denied();
  if (workspaceHeader !== undefined && workspaceHeader.trim() !== workspaceId) throw denied();
  const scopes = typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : [];
  if (requiredScopes.length && !requiredScopes.some((s) => scopes.includes(s))) throw denied();
  const userGrant = claims.grant_type !== "client_credentials";
  const userId = userGrant && typeof claims.sub === "string" ? claims.sub : undefined;
  const grantId = typeof claims.grant_id === "string" ? claims.grant_id : undefined;
  if (userGrant && (!userId || !grantId)) throw denied();
  const [workspace, client, grantActive, membership] = await Promise.all([
    getWorkspace(workspaceId),
    getOAuthClient(clientId),
    grantId ? isGrantActive(grantId) : Promise.resolve(true),
    userId ? findMembership(workspaceId, userId) : Promise.resolve(undefined),
  ]);
  if (!workspace || !client || !grantActive) throw denied();
  if (userId && !membership) throw new PlatenError("WORKSPACE_ROLE_DENIED");
  return {
    workspace,
    method: "bearer",
    clientId,
    scopes,
    grant: userGrant ? "authorization_code" : "client_credentials",
    ...(userId && { userId, role: membership?.role }),
  };
}
