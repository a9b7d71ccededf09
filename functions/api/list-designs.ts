import { config } from "#shared/aws/config.ts";
import { listDesigns, parsePage } from "#shared/designs/design-pages.ts";
import { apiHandler } from "#shared/http/api-handler.ts";

/** GET /v1/file/designs (OpenAPI listDesigns). */
export const handler = apiHandler(async function handleListDesigns(req) {
  const page = parsePage(req.query("page"));
  return { status: 200, json: await listDesigns(req.principal.workspace.id, page, config().baseUrl) };
});
