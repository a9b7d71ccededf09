import { managementHandler } from "#shared/http/management-handler.ts";
import { deleteWebhookEndpoint } from "#shared/webhooks/endpoints.ts";

/**
 * DELETE /v1/workspace/{workspaceId}/webhook-endpoints/{endpointId} (OpenAPI deleteWebhookEndpoint, ADMIN):
 * 204.
 */
export const handler = managementHandler(
  "delete-endpoint",
  async function handleDeleteWebhookEndpoint(req, { grant, audit }) {
    const endpointId = req.path("endpointId");
    await deleteWebhookEndpoint(grant.workspaceId, endpointId, { clientId: grant.ownerClientId });
    await audit("webhook-endpoint.delete", endpointId);
    return { status: 204, body: Buffer.alloc(0), contentType: "application/json" };
  },
);
