import { apiHandler } from "#shared/http/api-handler.ts";

/** OpenAPI healthCheck: no authentication, no access log; the body is ours to define. */
export const handler = apiHandler({ caller: "none" }, async function handleHealthCheck() {
  return { status: 200, headers: { "Cache-Control": "no-store" }, json: { status: "ok" } };
});
