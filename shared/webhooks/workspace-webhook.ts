import { listEndpointRecords } from "./endpoint-store.ts";
import {
  createWebhookEndpoint,
  type EndpointDeps,
  updateWebhookEndpoint,
  type WebhookEndpointView,
} from "./endpoints.ts";

/**
 * The older single-URL setting (OpenAPI setWorkspaceWebhook `PATCH /workspace/webhook`): the workspace's
 * one unfiltered endpoint, i.e. the oldest endpoint with `designFilterType: all` that the
 * caller may operate (its own or an unowned one; any, for a login session). It is updated
 * when it exists and created otherwise — then, and only then, with its signing secret.
 */
export async function setWorkspaceWebhook(
  workspaceId: string,
  input: { url: string; enabled?: boolean },
  deps: EndpointDeps,
): Promise<{ endpoint: WebhookEndpointView; secret?: string; created: boolean }> {
  const endpoints = await listEndpointRecords(workspaceId);
  const current = endpoints.find(
    (e) => e.designFilterType === "all" && (!deps.clientId || !e.ownerClientId || e.ownerClientId === deps.clientId),
  );
  if (current) {
    const endpoint = await updateWebhookEndpoint(workspaceId, current.endpointId, input, deps);
    return { endpoint, created: false };
  }
  const { endpoint, secret } = await createWebhookEndpoint(workspaceId, { ...input, designFilterType: "all" }, deps);
  return { endpoint, secret, created: true };
}
