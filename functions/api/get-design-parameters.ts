import { findDesignVersion, parseVersionQuery, publicParameterSchema } from "#shared/designs/find-design-version.ts";
import { apiHandler } from "#shared/http/api-handler.ts";

/** GET /v1/file/design/parameter/{designId}?version= (OpenAPI getDesignParameters). */
export const handler = apiHandler(async function handleGetDesignParameters(req) {
  const version = parseVersionQuery(req.query("version"));
  const found = await findDesignVersion(req.principal.workspace.id, req.path("designId"), version);
  return {
    status: 200,
    // README.md#versioning: a (designId, version) schema never changes, so a versioned fetch is cacheable.
    headers: { "Cache-Control": version === undefined ? "private, no-cache" : "private, max-age=86400, immutable" },
    json: publicParameterSchema(found.manifest.parameters),
  };
});
