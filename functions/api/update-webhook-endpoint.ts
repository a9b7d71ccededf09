import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { managementHandler } from "#shared/http/management-handler.ts";
import { updateEndpointBody } from "#shared/webhooks/endpoint-schemas.ts";
import { updateWebhookEndpoint } from "#shared/webhooks/endpoints.ts";
import { withMissingDesigns } from "#shared/webhooks/missing-designs.ts";

/**
 * PATCH /v1/workspace/{workspaceId}/webhook-endpoints/{endpointId} (OpenAPI updateWebhookEndpoint, ADMIN).
 * With a token: another client's endpoint is 404; an unowned one becomes the client's.
 */
export const handler = managementHandler(
  "update-endpoint",
  async function handleUpdateWebhookEndpoint(req, { grant, body, audit }) {
    const input = body(updateEndpointBody);
    const deps = { clock: systemClock, env: config().env, clientId: grant.ownerClientId };
    const endpoint = await updateWebhookEndpoint(grant.workspaceId, req.path("endpointId"), input, deps);
    await audit("webhook-endpoint.update", endpoint.id);
    const [view] = await withMissingDesigns(grant.workspaceId, [endpoint]);
    return { status: 200, json: view };
  },
);
