import { managementHandler } from "#shared/http/management-handler.ts";
import { readWebhookSecret } from "#shared/webhooks/endpoints.ts";

/**
 * GET /v1/workspace/{workspaceId}/webhook-endpoints/{endpointId}/secret (OpenAPI readWebhookSecret, ADMIN):
 * only in a first-party login session, never with an OAuth token (403). Reads are audited.
 */
export const handler = managementHandler("read-secret", async function handleReadWebhookSecret(req, { grant, audit }) {
  const endpointId = req.path("endpointId");
  const out = await readWebhookSecret(grant.workspaceId, endpointId);
  await audit("webhook-endpoint.secret-read", endpointId);
  return { status: 200, headers: { "Cache-Control": "no-store" }, json: out };
});
