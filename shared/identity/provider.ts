import { createHash, timingSafeEqual } from "node:crypto";
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from "oidc-provider";
import { logger } from "#shared/observability/logger.ts";
import { grantWorkspace } from "./grant-workspace.ts";
import type { IdentityKeys } from "./keys.ts";
import { loginPolicy } from "./login-policy.ts";
import { DynamoAdapter } from "./oidc-adapter.ts";
import { providerErrorPage, refusalPage } from "./screens.ts";
import { ALL_SCOPES, API_SCOPES, OIDC_SCOPES } from "./scopes.ts";
import { getUser } from "./users.ts";

/**
 * shared/identity/README.md#provider-settings, shared/limits/README.md#service-limits: access tokens live 3600
 * s.
 */
export const ACCESS_TOKEN_TTL = 3600;
const DAY = 24 * 3600;

/**
 * Paths on `{auth_url}` (see shared/identity/README.md#auth_url); the interaction screens are ours
 * (interactions.ts).
 */
export const authRoutes = {
  authorization: "/oauth/authorize",
  token: "/oauth/token",
  userinfo: "/oauth/userinfo",
  revocation: "/oauth/revoke",
  end_session: "/oauth/logout",
  jwks: "/jwks",
} as const;

export interface ProviderSettings {
  /** `{auth_url}`: the issuer; its path (an API Gateway stage) is where the provider is mounted. */
  issuer: string;
  /** `{base_url}`: the one resource server, the audience of every API access token. */
  apiAudience: string;
  keys: IdentityKeys;
}

/**
 * Claims for access tokens: the workspace the token acts for and how its grant began (read by the API,
 * README.md#authentication).
 */
async function workspaceClaims(ctx: KoaContextWithOIDC, token: { kind: string; grantId?: string; clientId?: string }) {
  if (token.kind === "ClientCredentials") {
    const workspaceId = ctx.oidc.client?.metadata().workspace_id as string | undefined;
    return { workspace_id: workspaceId, grant_type: "client_credentials" };
  }
  const workspaceId = token.grantId ? await grantWorkspace(token.grantId) : undefined;
  return { workspace_id: workspaceId, grant_type: "authorization_code", grant_id: token.grantId };
}

function resourceServer(settings: ProviderSettings) {
  return {
    enabled: true,
    // A request for only `openid`/`profile` gets a token for UserInfo; any API scope makes it an API token.
    defaultResource: async (ctx: KoaContextWithOIDC, _client: unknown, oneOf?: readonly string[]) => {
      if (oneOf) return oneOf;
      const requested = String(ctx.oidc.params?.scope ?? "")
        .split(" ")
        .filter(Boolean);
      return requested.length && requested.every((s) => OIDC_SCOPES.includes(s)) ? undefined : settings.apiAudience;
    },
    getResourceServerInfo: async (_ctx: KoaContextWithOIDC, indicator: string) => {
      if (indicator !== settings.apiAudience) throw new errors.InvalidTarget();
      return {
        scope: API_SCOPES.join(" "),
        audience: settings.apiAudience,
        accessTokenTTL: ACCESS_TOKEN_TTL,
        accessTokenFormat: "jwt" as const,
        jwt: { sign: { alg: "ES256" as const } },
      };
    },
    useGrantedResource: async () => true,
  };
}

function configuration(settings: ProviderSettings, mountPath: string): Configuration {
  return {
    adapter: DynamoAdapter,
    jwks: { keys: settings.keys.signingKeys },
    cookies: {
      keys: settings.keys.cookieKeys,
      names: { session: "_platen_oidc", interaction: "_platen_interaction", resume: "_platen_interaction_resume" },
    },
    findAccount: async (_ctx, sub) => {
      const user = await getUser(sub);
      if (!user) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: user.email, name: user.name }) };
    },
    claims: { openid: ["sub"], profile: ["email", "name"] },
    // Every scope, so client registrations may list them (`scope` = allowed_scopes, beyond → invalid_scope).
    scopes: [...ALL_SCOPES],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: true },
      resourceIndicators: resourceServer(settings),
    },
    pkce: { required: () => true },
    // infra/README.md#cross-origin-access: all origins are accepted, on the token, userinfo and revocation
    // endpoints too (oidc-provider's default only lets a public client call from its redirect URIs' origins).
    clientBasedCORS: () => true,
    responseTypes: ["code"],
    clientAuthMethods: ["none", "client_secret_post", "client_secret_basic"],
    clientDefaults: {
      id_token_signed_response_alg: "ES256",
      // Every ID token says when the password was given, so a client can judge the login's age itself.
      require_auth_time: true,
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
    extraClientMetadata: { properties: ["workspace_id"] },
    enabledJWA: { idTokenSigningAlgValues: ["ES256"] },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL,
      ClientCredentials: ACCESS_TOKEN_TTL,
      AuthorizationCode: 60,
      IdToken: ACCESS_TOKEN_TTL,
      Interaction: 3600,
      Session: 14 * DAY,
      Grant: 30 * DAY,
      RefreshToken: 30 * DAY,
    },
    // Refresh tokens rotate; a consumed one presented again revokes its whole grant (see
    // shared/identity/README.md#provider-settings).
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    expiresWithSession: async () => false,
    // Each authorization asks for consent again: that is where the user picks the workspace.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    extraTokenClaims: async (ctx, token) => workspaceClaims(ctx, token as never),
    interactions: {
      policy: loginPolicy(),
      url: (_ctx, interaction) => `${mountPath}/interaction/${interaction.uid}`,
    },
    routes: authRoutes,
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = providerErrorPage(out.error, out.error_description);
    },
  };
}

/**
 * The authorization server (shared/identity/README.md#auth_url, shared/identity/README.md#provider-settings):
 * oidc-provider configured for the code flow with PKCE S256, refresh with rotation, client credentials, JWT
 * access tokens for `{base_url}` signed with the kept ES256 keys.
 */
export function createProvider(settings: ProviderSettings): Provider {
  const mountPath = new URL(settings.issuer).pathname.replace(/\/$/, "");
  const provider = new Provider(settings.issuer, configuration(settings, mountPath));
  provider.proxy = true; // API Gateway terminates TLS and sends X-Forwarded-Proto
  // A path or method no route of the provider takes: a page like every other refusal of this host, not
  // Koa's bare text "Not Found" (found by test/integration/fuzz-auth.test.ts).
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null) return;
    ctx.type = "html";
    ctx.body = refusalPage(404, "Not found.");
    ctx.status = 404;
  });
  // The provider answers `server_error` without details; the cause goes to the log.
  const logUnexposed = (event: string) => (_ctx: unknown, err: Error) => {
    if ((err as { expose?: boolean }).expose) return;
    logger.error(`oidc-provider ${event}`, err instanceof Error ? err : String(err));
  };
  provider.on("server_error", logUnexposed("server_error"));
  provider.on("grant.error", logUnexposed("grant.error"));
  // Client secrets are stored as SHA-256 hashes (clientMetadata): hash what is presented, compare in constant time.
  provider.Client.prototype.compareClientSecret = async function compareHashed(
    this: { clientSecret?: string },
    actual: string,
  ) {
    const expected = Buffer.from(this.clientSecret ?? "", "hex");
    const presented = createHash("sha256").update(actual, "utf8").digest();
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  };
  return provider;
}
