import { routes } from "#shared/definitions/routes.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import { servedOpenApiDocument } from "#shared/openapi/served-document.ts";

/** GET /v1/openapi.json (no authentication): the OpenAPI 3.1 document of every route, built once per container. */
export const handler = apiHandler({ caller: "none" }, async function handleGetOpenapi() {
  return { status: 200, headers: { "Cache-Control": "public, max-age=300" }, json: servedOpenApiDocument(routes) };
});
