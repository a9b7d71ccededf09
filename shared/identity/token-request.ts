import { getOAuthClient } from "./oauth-clients.ts";
import { API_SCOPES, OIDC_SCOPES } from "./scopes.ts";

export type TokenPolicyResult =
  | { body: string }
  | { error: "invalid_scope" | "unauthorized_client"; error_description: string };

/** The client id a token request authenticates as: Basic credentials, else the `client_id` field. */
function clientIdOf(form: URLSearchParams, authorization: string | undefined): string | undefined {
  const [scheme, value] = (authorization ?? "").split(" ");
  if (scheme?.toLowerCase() === "basic" && value) {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, "%20"));
  }
  return form.get("client_id") ?? undefined;
}

/**
 * shared/identity/README.md#provider-settings rules of the client-credentials grant that are policy, not
 * protocol, applied to the form before oidc-provider sees it: a public client may not use it
 * (`unauthorized_client`, RFC 6749 §5.2; the provider would say `invalid_request`),
 * `openid`/`profile` are not offered (`invalid_scope`), and an omitted (or empty) `scope`
 * means every API scope the client is allowed.
 * Client authentication, grant-type checks and every other error stay with the provider.
 */
export async function applyTokenPolicy(rawBody: string, authorization: string | undefined): Promise<TokenPolicyResult> {
  const form = new URLSearchParams(rawBody);
  if (form.get("grant_type") !== "client_credentials") return { body: rawBody };
  const clientId = clientIdOf(form, authorization);
  const client = clientId ? await getOAuthClient(clientId) : undefined;
  if (client?.isPublic)
    return { error: "unauthorized_client", error_description: "public clients cannot use client credentials" };
  // An empty or blank `scope` asks for nothing in particular: read as omitted (a token with no
  // scope at all would be refused by every API route).
  const scope = form.get("scope")?.trim() || null;
  if (scope !== null) {
    const oidc = scope.split(" ").find((s) => OIDC_SCOPES.includes(s));
    if (oidc)
      return { error: "invalid_scope", error_description: `scope ${oidc} is not offered for client credentials` };
    return { body: rawBody };
  }
  if (!client) return { body: rawBody }; // the provider answers invalid_client
  form.set("scope", client.allowedScopes.filter((s) => API_SCOPES.includes(s)).join(" "));
  return { body: form.toString() };
}
