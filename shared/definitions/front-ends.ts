import type { FunctionId } from "./functions.ts";
import { authPathPrefixes } from "./routes.ts";

/**
 * The front ends beside `{base_url}` (see infra/README.md#architecture-in-short): each is one Lambda behind its
 * own proxy API in AWS (infra/stack/frontends.ts). Locally every origin is the same gateway,
 * so it sends a path to the front end with the longest matching prefix; `/v1/*` always
 * belongs to the API route table. A front end whose function is not defined yet is skipped.
 */
export interface FrontEndDefinition {
  function: FunctionId | (string & {});
  /**
   * Paths served locally: one ending in `/` is a prefix (`/` alone takes whatever no other
   * claims), any other is matched exactly.
   */
  prefixes: readonly string[];
}

export const frontEnds: FrontEndDefinition[] = [
  // {auth_url} (see shared/identity/README.md#auth_url): oidc-provider, the login and consent screens
  // (functions/auth).
  { function: "auth", prefixes: authPathPrefixes },
  // {site}: file view, output history, error docs, workspace settings (functions/site).
  { function: "site", prefixes: ["/"] },
];

/** The front end serving `path` locally, or undefined (API paths, or no such function). */
export function frontEndFor(path: string, defined: (fn: string) => boolean): FrontEndDefinition | undefined {
  if (path === "/v1" || path.startsWith("/v1/")) return undefined;
  let best: { def: FrontEndDefinition; length: number } | undefined;
  for (const def of frontEnds) {
    if (!defined(def.function)) continue;
    for (const prefix of def.prefixes) {
      const matches = prefix.endsWith("/") ? path.startsWith(prefix) : path === prefix;
      if (matches && prefix.length > (best?.length ?? -1)) best = { def, length: prefix.length };
    }
  }
  return best?.def;
}
