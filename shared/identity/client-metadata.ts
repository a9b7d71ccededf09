import type { AdapterPayload } from "oidc-provider";
import type { StoredOAuthClient } from "./oauth-clients.ts";

/**
 * A registration as oidc-provider client metadata (see shared/identity/README.md#provider-settings). Public
 * clients: PKCE code flow and refresh, auth method `none`. Confidential clients: client credentials, plus the
 * code flow when they have redirect URIs; `client_secret_basic` is registered and
 * oidc-provider accepts `client_secret_post` for it too. `client_secret` carries the
 * stored SHA-256 hash: the provider's secret comparison is replaced to hash the presented
 * one first (provider.ts), so the secret itself is never stored.
 */
export function clientMetadata(client: StoredOAuthClient): AdapterPayload {
  const codeFlow = client.redirectUris.length > 0;
  const grantTypes = [
    ...(codeFlow ? ["authorization_code", "refresh_token"] : []),
    ...(client.isPublic ? [] : ["client_credentials"]),
  ];
  return {
    client_id: client.clientId,
    client_name: client.name,
    ...(client.isPublic
      ? { token_endpoint_auth_method: "none" }
      : { token_endpoint_auth_method: "client_secret_basic", client_secret: client.secretHash }),
    grant_types: grantTypes,
    response_types: codeFlow ? ["code"] : [],
    redirect_uris: client.redirectUris,
    scope: client.allowedScopes.join(" "),
    workspace_id: client.workspaceId,
  };
}
