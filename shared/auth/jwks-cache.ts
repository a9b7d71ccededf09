import { createRemoteJWKSet } from "jose";

/**
 * How long a fetched JSON Web Key Set is trusted before it is fetched again: 10 minutes (jose's own
 * default). A signing key the authorization server removed (compromised, retired) stops verifying
 * tokens within this time in every container; a longer cache would keep honouring it for as long.
 */
export const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;

/** An unknown `kid` refetches the set at most this often (a new signing key is picked up at once). */
export const JWKS_COOLDOWN_MS = 30_000;

/** The remote key set of an authorization server, cached as above. */
export const remoteKeySet = (url: URL) =>
  createRemoteJWKSet(url, { cooldownDuration: JWKS_COOLDOWN_MS, cacheMaxAge: JWKS_CACHE_MAX_AGE_MS });
