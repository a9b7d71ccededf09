import type { WebhookEndpoint } from "./endpoint-store.ts";
import type { GenerationEvent } from "./generation-event.ts";

/**
 * Whether an endpoint's design filter lets a design through (see
 * shared/webhooks/README.md#registering-endpoints).
 */
export const filterMatches = (
  endpoint: Pick<WebhookEndpoint, "designFilterType" | "targetDesignIds">,
  designId: string,
): boolean => endpoint.designFilterType === "all" || endpoint.targetDesignIds.includes(designId);

/**
 * The endpoints one generation event goes to (see shared/webhooks/README.md#which-endpoints-get-what):
 * 1. without `webhookUrl`: every enabled endpoint whose design filter matches;
 * 2. with `webhookUrl`: only the enabled endpoint with exactly that URL — the request named
 *    it, so its design filter is not consulted;
 * 3. `file.failed` only with `webhookUrl`, only to it.
 * An endpoint disabled or deleted since acceptance gets nothing.
 */
export function routeEvent(
  event: Pick<GenerationEvent, "event" | "designId" | "webhookUrl">,
  endpoints: WebhookEndpoint[],
): WebhookEndpoint[] {
  const enabled = endpoints.filter((e) => e.enabled);
  if (event.webhookUrl !== undefined) {
    // URLs are unique per workspace at registration; oldest first settles any legacy duplicate.
    const target = enabled.find((e) => e.url === event.webhookUrl);
    return target ? [target] : [];
  }
  if (event.event === "file.failed") return [];
  return enabled.filter((e) => filterMatches(e, event.designId));
}
