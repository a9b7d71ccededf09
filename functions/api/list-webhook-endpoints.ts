import { managementHandler } from "#shared/http/management-handler.ts";
import { listWebhookEndpoints } from "#shared/webhooks/endpoints.ts";
import { withMissingDesigns } from "#shared/webhooks/missing-designs.ts";

/**
 * GET /v1/workspace/{workspaceId}/webhook-endpoints (OpenAPI listWebhookEndpoints, READ): every endpoint, never
 * a secret.
 */
export const handler = managementHandler("list-endpoints", async function handleListWebhookEndpoints(_req, { grant }) {
  const items = await withMissingDesigns(grant.workspaceId, await listWebhookEndpoints(grant.workspaceId));
  return { status: 200, headers: { "Cache-Control": "no-store" }, json: { items } };
});
