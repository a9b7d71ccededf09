import { PlatenError } from "#shared/errors/platen-error.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { checkEndpointUrl } from "./endpoint-input.ts";
import { webhookText } from "./webhook-text.ts";
import { listEndpointRecords, type StoredEndpoint } from "./endpoint-store.ts";
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
 *
 * A URL that already belongs to another endpoint (a filtered one, or one of another client) is
 * refused with that endpoint's id rather than adopted: turning it into the unfiltered endpoint
 * would silently change which designs it receives, and its owner may be another integration.
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
  const url = checkEndpointUrl(input.url, deps.env);
  const other = endpoints.find((e) => e.url === url && e.endpointId !== current?.endpointId);
  if (other) throw urlOfAnotherEndpoint(workspaceId, other);
  if (current) {
    const endpoint = await updateWebhookEndpoint(workspaceId, current.endpointId, input, deps);
    return { endpoint, created: false };
  }
  const { endpoint, secret } = await createWebhookEndpoint(workspaceId, { ...input, designFilterType: "all" }, deps);
  return { endpoint, secret, created: true };
}

function urlOfAnotherEndpoint(workspaceId: string, other: StoredEndpoint): PlatenError {
  const path = `/workspace/${workspaceId}/webhook-endpoints/${other.endpointId}`;
  return new PlatenError("VALIDATION_FAILED", {
    details: [
      {
        field: "url",
        text: fillBoth(webhookText.urlOfAnother, {
          endpointId: other.endpointId,
          filter: other.designFilterType,
          path,
        }),
      },
    ],
  });
}
