const GENERATE = ["pdf:generate"] as const;
const READ_RECORDS = ["records:read"] as const;
const READ_DESIGNS = ["pdf:generate", "designs:read", "designs:write", "templates:read"] as const;

/**
 * Scopes a Bearer token needs per API path (one of them suffices). shared/identity/README.md#scopes requires
 * `pdf:generate` for generation; status and downloads return what generation made, so
 * they take the same. The spec does not name the scope of the design list and parameter
 * endpoints: they accept `pdf:generate` (what an integration that generates has) or a
 * design/template read scope.
 */
export function requiredScopesOf(path: string): readonly string[] {
  const p = path.replace(/^\/v1/, "");
  if (/^\/file\/(sync|async|status|download)\//.test(p)) return GENERATE;
  if (p.startsWith("/file/designs") || p.startsWith("/file/design/parameter/")) return READ_DESIGNS;
  // Kept records (shared/records/README.md#the-api): a scope of their own, which a READ member may hold.
  if (p === "/records" || p.startsWith("/records/")) return READ_RECORDS;
  return [];
}
