import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { managementHandler } from "#shared/http/management-handler.ts";
import { workspaceWebhookBody } from "#shared/webhooks/endpoint-schemas.ts";
import { setWorkspaceWebhook } from "#shared/webhooks/workspace-webhook.ts";

/**
 * PATCH /v1/workspace/webhook and /v1/workspace/{workspaceId}/webhook (OpenAPI setWorkspaceWebhook, ADMIN):
 * the single-URL setting, i.e. the workspace's one unfiltered endpoint (workspace-webhook.ts).
 * 201 with the secret when it had to be created, else 200.
 */
export const handler = managementHandler(
  "set-workspace-webhook",
  async function handleSetWorkspaceWebhook(_req, { grant, body, audit }) {
    const input = body(workspaceWebhookBody);
    const deps = { clock: systemClock, env: config().env, clientId: grant.ownerClientId };
    const out = await setWorkspaceWebhook(grant.workspaceId, input, deps);
    await audit(out.created ? "webhook-endpoint.create" : "webhook-endpoint.update", out.endpoint.id);
    const json = out.secret ? { ...out.endpoint, secret: out.secret } : out.endpoint;
    return { status: out.created ? 201 : 200, headers: { "Cache-Control": "no-store" }, json };
  },
);
