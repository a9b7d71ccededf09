import { routes } from "#shared/definitions/routes.ts";
import { config } from "#shared/aws/config.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import { buildOpenApiDocument } from "#shared/openapi/document.ts";

let document: unknown;

/** GET /v1/openapi.json (no authentication): the OpenAPI 3.1 document of every route, built once per container. */
export const handler = apiHandler({ caller: "none" }, async function handleGetOpenapi() {
  document ??= buildOpenApiDocument(routes, { baseUrl: config().baseUrl, authUrl: config().authUrl });
  return { status: 200, headers: { "Cache-Control": "public, max-age=300" }, json: document };
});
