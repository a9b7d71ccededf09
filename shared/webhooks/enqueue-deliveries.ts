import { createHash } from "node:crypto";
import { createDelivery, type DeliveryRecord, getDelivery } from "./delivery-store.ts";
import { listEndpointRecords, type WebhookEndpoint } from "./endpoint-store.ts";
import type { GenerationEvent } from "./generation-event.ts";
import type { Passcodes } from "./payload.ts";
import { routeEvent } from "./routing.ts";
import { type DispatchMessage, sendDispatchMessages } from "./webhook-queue.ts";
import { DELIVERY_LOG_DAYS } from "./webhook-settings.ts";

/**
 * The delivery id of (request, event kind, endpoint): stable, so a replayed enqueue finds
 * the delivery it already made instead of notifying twice.
 */
export function deliveryIdOf(requestId: string, event: string, endpointId: string): string {
  return `dlv_${createHash("sha256").update(`${requestId}\n${event}\n${endpointId}`).digest("hex").slice(0, 24)}`;
}

function newDelivery(e: GenerationEvent, endpoint: WebhookEndpoint): DeliveryRecord {
  return {
    deliveryId: deliveryIdOf(e.requestId, e.event, endpoint.endpointId),
    endpointId: endpoint.endpointId,
    event: e.event,
    timestamp: e.timestamp,
    workspaceId: e.workspaceId,
    requestId: e.requestId,
    designId: e.designId,
    version: e.version,
    fileIds: e.fileIds,
    ...(e.errorCode && { errorCode: e.errorCode }),
    status: "pending",
    attemptsDone: 0,
    scheduledAttempt: 1,
    attempts: [],
    createdAt: e.timestamp,
    updatedAt: e.timestamp,
    expiresAt: Math.floor(Date.parse(e.timestamp) / 1000) + DELIVERY_LOG_DAYS * 86400,
  };
}

/** Only the passcodes of this event's files; none for `file.failed`. */
function passcodesFor(e: GenerationEvent, passcodes: Passcodes | undefined): Passcodes | undefined {
  if (!passcodes || e.event !== "file.completed") return undefined;
  const picked = Object.fromEntries(e.fileIds.filter((id) => passcodes[id]).map((id) => [id, passcodes[id]!]));
  return Object.keys(picked).length ? picked : undefined;
}

/** Writes the delivery item; true when attempt 1 still has to be queued (new, or a replay before any attempt). */
async function prepareDelivery(record: DeliveryRecord): Promise<boolean> {
  if (await createDelivery(record)) return true;
  const existing = await getDelivery(record);
  return existing !== undefined && existing.status === "pending" && existing.attemptsDone === 0;
}

/**
 * Fans one recorded generation event out to its endpoints (see
 * shared/webhooks/README.md#which-endpoints-get-what): a delivery item per endpoint in the delivery log, then
 * one webhook-queue message per delivery, so every endpoint is retried on its own and a failing one never holds
 * up another.
 *
 * @param passcodes - Plaintext passcodes by file id, known only during a sync generation;
 *   they travel in the first delivery's messages, never in a table.
 * @param known - The workspace's endpoints when the caller looked them up already (a sync
 *   generation does so while it renders).
 * @returns The number of deliveries queued.
 */
export async function enqueueWebhookDeliveries(
  e: GenerationEvent,
  passcodes?: Passcodes,
  known?: Promise<WebhookEndpoint[]>,
): Promise<number> {
  const endpoints = routeEvent(e, await (known ?? listEndpointRecords(e.workspaceId)));
  if (!endpoints.length) return 0;
  const records = endpoints.map((endpoint) => newDelivery(e, endpoint));
  const due = await Promise.all(records.map(prepareDelivery));
  const carried = passcodesFor(e, passcodes);
  const messages: DispatchMessage[] = records
    .filter((_, i) => due[i])
    .map((r) => ({
      deliveryId: r.deliveryId,
      endpointId: r.endpointId,
      workspaceId: e.workspaceId,
      createdAt: r.createdAt,
      attempt: 1,
      ...(carried && { passcodes: carried }),
    }));
  await sendDispatchMessages(messages);
  return messages.length;
}
