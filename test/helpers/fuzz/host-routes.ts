import { authPathPrefixes } from "#shared/definitions/routes.ts";
import type { RouteRow } from "#shared/http/route-table.ts";
import { authRoutes } from "#shared/identity/provider.ts";

/**
 * The routes of the two hosts beside the API, as the fuzz sends them: one entry per method
 * and path pattern (`:name` is a path parameter). The site's come from its own route table
 * (functions/site/handler.ts `siteRoutes`), the auth host's from the provider's route names
 * (`authRoutes`) and the prefixes the gateway gives it (`authPathPrefixes`), so a new route
 * of either is fuzzed without a change to the suite.
 */
export interface HostRoute {
  method: string;
  /** The pattern: `/designs/:designId/versions/:version`. */
  path: string;
  /** Its parameters in order (`:page.png` is the parameter `page` then `.png`). */
  params: string[];
}

const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

export const routeName = (r: HostRoute) => `${r.method} ${r.path}`;

/** Every method of every row of the site's route table. */
export function siteFuzzRoutes(table: readonly RouteRow[]): HostRoute[] {
  return table.flatMap((row) => row.methods.map((method) => ({ method, path: row.path, params: paramsOf(row.path) })));
}

/**
 * The auth host's paths below each prefix the gateway sends it. oidc-provider's routes come from
 * `authRoutes` (both methods: the provider answers the one it does not take itself); the
 * interaction screens and the public gallery are the app's own (shared/identity/auth-app.ts).
 */
const BELOW_PREFIX: Record<(typeof authPathPrefixes)[number], string[]> = {
  "/.well-known/": ["GET /.well-known/openid-configuration", "GET /.well-known/:name"],
  "/oauth/": [
    ...Object.values(authRoutes)
      .filter((p) => p.startsWith("/oauth/"))
      .flatMap((p) => [`GET ${p}`, `POST ${p}`]),
    `POST ${authRoutes.end_session}/confirm`,
    `GET ${authRoutes.end_session}/success`,
    "GET /oauth/:name",
  ],
  "/jwks": [`GET ${authRoutes.jwks}`],
  "/interaction/": [
    "GET /interaction/:uid",
    "POST /interaction/:uid/login",
    "POST /interaction/:uid/confirm",
    "GET /interaction/:uid/:action",
  ],
  "/public/templates": ["GET /public/templates", "POST /public/templates"],
  "/public/templates/": ["GET /public/templates/:templateId/thumbnail", "GET /public/templates/:templateId"],
};

/** Every route of `{auth_url}`; throws for a prefix of `authPathPrefixes` the list above does not cover. */
export function authFuzzRoutes(): HostRoute[] {
  const lines = authPathPrefixes.flatMap((prefix) => {
    const below = BELOW_PREFIX[prefix];
    if (!below) throw new Error(`the auth fuzz has no routes for the prefix ${prefix} (host-routes.ts)`);
    return below;
  });
  return [...new Set(lines)].map((line) => {
    const [method, path] = line.split(" ") as [string, string];
    return { method, path, params: paramsOf(path) };
  });
}
