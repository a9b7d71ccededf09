import { liveRequestDeps } from "#shared/generation/store/index.ts";
import { requestStatus, RETRY_AFTER_SECONDS } from "#shared/generation/reads/index.ts";
import { apiHandler } from "#shared/http/api-handler.ts";

/** GET /v1/file/status/{requestId} (OpenAPI getStatus): Retry-After: 2 while queued or processing. */
export const handler = apiHandler(async function handleGetStatus(req) {
  const body = await requestStatus(req.path("requestId"), req.principal.workspace.id, liveRequestDeps);
  const pending = body.status === "queued" || body.status === "processing";
  return {
    status: 200,
    headers: { "Cache-Control": "no-store", ...(pending && { "Retry-After": String(RETRY_AFTER_SECONDS) }) },
    json: body,
  };
});
