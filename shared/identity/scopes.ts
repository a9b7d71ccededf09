/** shared/identity/README.md#scopes: every scope of the service. */
export const ALL_SCOPES = [
  "openid",
  "profile",
  "designs:read",
  "designs:write",
  "templates:read",
  "templates:write",
  "pdf:generate",
  "records:read",
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

/**
 * shared/identity/README.md#scopes: scopes of the user (OpenID) half; the client-credentials flow never gets
 * them.
 */
export const OIDC_SCOPES: readonly string[] = ["openid", "profile"];

/** Scopes that are about the API (`{base_url}`), carried by the JWT access token. */
export const API_SCOPES: readonly string[] = ALL_SCOPES.filter((s) => !OIDC_SCOPES.includes(s));

/**
 * Splits a space-separated scope string (shared/identity/README.md#scopes separator) into known scopes, or
 * throws naming the unknown one.
 */
export function parseScopes(raw: string): Scope[] {
  const scopes = [...new Set(raw.split(" ").filter(Boolean))];
  const unknown = scopes.find((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown) throw new Error(`unknown scope "${unknown}" (known: ${ALL_SCOPES.join(" ")})`);
  return scopes as Scope[];
}
