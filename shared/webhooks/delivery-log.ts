import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import {
  type AttemptLogEntry,
  type DeliveryRecord,
  findDelivery,
  listDeliveries,
  reopenDelivery,
} from "./delivery-store.ts";
import { getEndpointRecord } from "./endpoint-store.ts";
import { sendDispatchMessages } from "./webhook-queue.ts";
import { DELIVERY_LOG_DAYS } from "./webhook-settings.ts";
import { webhookText } from "./webhook-text.ts";

/** A delivery as operators see it (admin CLI; later the management API). */
export interface DeliveryView {
  deliveryId: string;
  endpointId: string;
  event: DeliveryRecord["event"];
  requestId: string;
  status: DeliveryRecord["status"];
  attempts: AttemptLogEntry[];
  nextAttemptAt?: string;
  createdAt: string;
  updatedAt: string;
}

const view = (d: DeliveryRecord): DeliveryView => ({
  deliveryId: d.deliveryId,
  endpointId: d.endpointId,
  event: d.event,
  requestId: d.requestId,
  status: d.status,
  attempts: d.attempts ?? [],
  ...(d.status === "pending" && d.nextAttemptAt && { nextAttemptAt: d.nextAttemptAt }),
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const refused = (text: Bilingual) => new PlatenError("VALIDATION_FAILED", { details: [{ field: "deliveryId", text }] });
const notFound = (field: string, text: Bilingual) => new PlatenError("NOT_FOUND", { details: [{ field, text }] });

/**
 * The delivery log of one endpoint, newest first (30 days). With `workspaceId`, only that
 * workspace's deliveries: another workspace's endpoint shows nothing.
 */
export async function listWebhookDeliveries(
  endpointId: string,
  options: { workspaceId?: string; limit?: number },
  clock: Clock,
): Promise<DeliveryView[]> {
  const deliveries = await listDeliveries(endpointId, clock.now(), options.limit);
  return deliveries.filter((d) => !options.workspaceId || d.workspaceId === options.workspaceId).map(view);
}

/**
 * Manual redelivery: one new attempt of a finished delivery (delivered or failed) with the
 * same delivery id, signed afresh. The payload is rebuilt from the file records, so a
 * passcode shown once after generation is not in it. A pending delivery (retries still
 * scheduled) and a disabled or deleted endpoint are refused.
 */
export async function redeliverWebhook(
  deliveryId: string,
  clock: Clock,
): Promise<{ deliveryId: string; attempt: number }> {
  const record = await findDelivery(deliveryId);
  if (!record) throw notFound("deliveryId", webhookText.deliveryNotFound);
  if (record.status === "pending") {
    throw refused(fillBoth(webhookText.deliveryPending, { next: record.nextAttemptAt ?? webhookText.queued }));
  }
  const endpoint = await getEndpointRecord(record.workspaceId, record.endpointId);
  if (!endpoint) throw notFound("endpointId", webhookText.endpointDeleted);
  if (!endpoint.enabled) throw refused(webhookText.endpointDisabled);
  const now = clock.now();
  const expiresAt = Math.floor(now.getTime() / 1000) + DELIVERY_LOG_DAYS * 86400;
  if (!(await reopenDelivery(record, now, expiresAt))) throw refused(webhookText.deliveryChanged);
  const attempt = record.attemptsDone + 1;
  await sendDispatchMessages([
    { deliveryId, endpointId: record.endpointId, createdAt: record.createdAt, attempt, manual: true },
  ]);
  return { deliveryId, attempt };
}
