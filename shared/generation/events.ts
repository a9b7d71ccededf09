import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { logger } from "#shared/observability/logger.ts";
import { enqueueWebhookDeliveries } from "#shared/webhooks/enqueue-deliveries.ts";
import type { WebhookEndpoint } from "#shared/webhooks/endpoint-store.ts";

/**
 * A generation event (spec 6) recorded for the webhook dispatcher: which request, which
 * files, and whether it was addressed to one `webhookUrl`. Payloads are built from the
 * file records at delivery time, so no params (and no passcode) are stored here.
 * `errorCode` (file.failed): PARTIAL_FAILURE, FILE_GENERATION_FAILED or a single file's code.
 */
export interface GenerationEvent {
  event: "file.completed" | "file.failed";
  workspaceId: string;
  requestId: string;
  designId: string;
  version: number;
  fileIds: string[];
  webhookUrl?: string;
  errorCode?: string;
  timestamp: string;
}

/**
 * Records the event (the durable outbox item; idempotent per (request, event): a replay
 * writes the same item again), then queues its webhook deliveries (spec 6). Delivery ids
 * are stable, so a replay does not notify twice. A failure to queue is logged with the
 * outbox key and not thrown: the files exist and the answer must not turn into an error.
 *
 * @param passcodes - Plaintext passcodes by file id, only from a sync generation (they
 *   go into the first delivery's queue message, never into a table).
 */
export async function recordEvent(e: GenerationEvent, expiresAt: number, passcodes?: Record<string, string>): Promise<void> {
  await writeEventRecord(e, expiresAt);
  await deliverEvent(e, passcodes);
}

/** The durable outbox item of an event (idempotent per request and event kind). */
export async function writeEventRecord(e: GenerationEvent, expiresAt: number): Promise<void> {
  await awsClients().ddb.send(
    new PutCommand({
      TableName: config().tables.requests,
      Item: { pk: `REQ#${e.requestId}`, sk: `EVENT#${e.event}`, ...e, expiresAt },
    }),
  );
}

/** Queues the event's webhook deliveries; a failure is logged with the outbox key, never thrown. */
export async function deliverEvent(
  e: GenerationEvent,
  passcodes?: Record<string, string>,
  endpoints?: Promise<WebhookEndpoint[]>,
): Promise<void> {
  await enqueueWebhookDeliveries(e, passcodes, endpoints).catch((err: Error) => {
    const outbox = `REQ#${e.requestId} EVENT#${e.event}`;
    logger.error("webhook deliveries not queued", { outbox, requestId: e.requestId, error: err });
  });
}
