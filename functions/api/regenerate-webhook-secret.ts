import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { managementHandler } from "#shared/http/management-handler.ts";
import { regenerateSecretBody } from "#shared/webhooks/endpoint-schemas.ts";
import { rotateWebhookSecret } from "#shared/webhooks/endpoints.ts";

/**
 * POST /v1/workspace/{workspaceId}/webhook-endpoints/{endpointId}/secret/regenerate
 * (OpenAPI regenerateWebhookSecret, ADMIN): the new secret once. The previous one stops signing at once, unless
 * the optional body asks for `previousSecretHours` of overlap.
 */
export const handler = managementHandler(
  "regenerate-secret",
  async function handleRegenerateWebhookSecret(req, { grant, body, audit }) {
    const deps = { clock: systemClock, env: config().env, clientId: grant.ownerClientId };
    const { previousSecretHours } = req.bodyText()?.trim() ? body(regenerateSecretBody) : {};
    const endpointId = req.path("endpointId");
    // Audited before the new secret is stored: a failed audit write must not cost the caller the new secret.
    const out = await rotateWebhookSecret(grant.workspaceId, endpointId, deps, previousSecretHours, () =>
      audit("webhook-endpoint.secret-regenerate", endpointId),
    );
    return { status: 200, headers: { "Cache-Control": "no-store" }, json: out };
  },
);
