import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { managementHandler } from "#shared/http/management-handler.ts";
import { createEndpointBody } from "#shared/webhooks/endpoint-schemas.ts";
import { createWebhookEndpoint } from "#shared/webhooks/endpoints.ts";
import { withMissingDesigns } from "#shared/webhooks/missing-designs.ts";

/**
 * POST /v1/workspace/{workspaceId}/webhook-endpoints (OpenAPI createWebhookEndpoint, ADMIN): 201 with the
 * signing secret, shown this once.
 */
export const handler = managementHandler(
  "create-endpoint",
  async function handleCreateWebhookEndpoint(_req, { grant, body, audit }) {
    const input = body(createEndpointBody);
    const { endpoint, secret } = await createWebhookEndpoint(grant.workspaceId, input, {
      clock: systemClock,
      env: config().env,
      clientId: grant.ownerClientId,
    });
    await audit("webhook-endpoint.create", endpoint.id);
    const [view] = await withMissingDesigns(grant.workspaceId, [endpoint]);
    return { status: 201, headers: { "Cache-Control": "no-store" }, json: { ...view, secret } };
  },
);
