import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import { logger } from "#shared/observability/logger.ts";
import { enqueueWebhookDeliveries } from "./enqueue-deliveries.ts";
import { listEndpointRecords, type WebhookEndpoint } from "./endpoint-store.ts";
import { type GenerationEvent, generationEventSchema } from "./generation-event.ts";
import { routeEvent } from "./routing.ts";
import * as z from "zod";

/** Shard of the `active` index that lists outbox items whose deliveries are not queued yet. */
export const OUTBOX_SHARD = "outbox";

/** An event is relayed when its deliveries were not queued within this many seconds of it. */
export const OUTBOX_RELAY_SECONDS = 60;

/**
 * An outbox item as the relay reads it: the event, and the registration time that limits its endpoints.
 * The outbox's writers and readers reach it through the `EventOutbox` port
 * (shared/generation/store/request-ports.ts); this module is its DynamoDB adapter.
 */
export const outboxItemSchema = generationEventSchema.extend({ endpointsAsOf: z.string().optional() });

const eventKey = (e: Pick<GenerationEvent, "requestId" | "event">) => ({
  pk: `REQ#${e.requestId}`,
  sk: `EVENT#${e.event}`,
});

/**
 * The durable outbox item of an event (idempotent per request and event kind). It is
 * listed in the `active` index (shard `outbox`) until its deliveries are queued
 * (`deliverEvent`), so the sweeper's relay finds any whose queueing failed or died.
 * `endpointsAsOf`: only endpoints registered by then receive it (a sync request's).
 * Only events some endpoint receives are written (`dueEvents`).
 */
export async function writeEventRecord(e: GenerationEvent, expiresAt: number, endpointsAsOf?: string): Promise<void> {
  await awsClients().ddb.send(
    new PutCommand({
      TableName: config().tables.requests,
      Item: {
        ...eventKey(e),
        ...e,
        activeShard: OUTBOX_SHARD,
        createdAt: e.timestamp,
        ...(endpointsAsOf && { endpointsAsOf }),
        expiresAt,
      },
    }),
  );
}

/**
 * The events of one workspace that an endpoint registered now (by `endpointsAsOf`, when given)
 * would receive. An event nobody would receive needs no outbox item: nothing is ever relayed for it.
 * When the endpoints cannot be read, every event: the outbox then decides at relay time, as before.
 */
export async function dueEvents(events: GenerationEvent[], endpointsAsOf?: string): Promise<GenerationEvent[]> {
  if (!events.length) return [];
  try {
    const endpoints = (await listEndpointRecords(events[0]!.workspaceId)).filter(
      (x) => endpointsAsOf === undefined || x.createdAt <= endpointsAsOf,
    );
    return events.filter((e) => routeEvent(e, endpoints).length > 0);
  } catch (error) {
    logger.warn("webhook endpoints not read: events recorded for the outbox relay", {
      requestId: events[0]!.requestId,
      error: String(error),
    });
    return events;
  }
}

/**
 * Queues the event's webhook deliveries, then takes the event out of the outbox. A failure
 * is logged with the outbox key, never thrown (the files exist; the answer must not turn
 * into an error): the event stays in the outbox and the sweeper relays it. Delivery ids
 * are stable and attempts claimed once, so a relay never notifies an endpoint twice.
 *
 * @param passcodes - Plaintext passcodes by file id, only from a sync generation (they
 *   go into the first delivery's queue message, never into a table; a relay has none).
 */
export async function deliverEvent(
  e: GenerationEvent,
  passcodes?: Record<string, string>,
  endpoints?: Promise<WebhookEndpoint[]>,
): Promise<boolean> {
  try {
    await enqueueWebhookDeliveries(e, passcodes, endpoints);
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.requests,
        Key: eventKey(e),
        UpdateExpression: "REMOVE activeShard",
        ConditionExpression: "attribute_exists(pk)",
      }),
    );
    return true;
  } catch (err) {
    const outbox = `REQ#${e.requestId} EVENT#${e.event}`;
    logger.error("webhook deliveries not queued (the outbox relay retries)", {
      outbox,
      requestId: e.requestId,
      error: err,
    });
    return false;
  }
}

/**
 * The outbox relay: queues the deliveries of every event recorded before `before` whose
 * deliveries were never queued, once its request is finalized (an async request's events
 * are written just before its job ends). Returns how many events were relayed.
 */
export async function relayOutbox(before: string, isFinal: (requestId: string) => Promise<boolean>): Promise<number> {
  const items = await queryAll({
    TableName: config().tables.requests,
    IndexName: "active",
    KeyConditionExpression: "activeShard = :shard AND createdAt < :before",
    ExpressionAttributeValues: { ":shard": OUTBOX_SHARD, ":before": before },
  });
  let relayed = 0;
  for (const item of items) {
    // One event that cannot be relayed now (a missing request, a failing read, an item that does not
    // decode) must not hold back the others: it stays in the outbox for the next run.
    try {
      const { endpointsAsOf, ...event } = decodeStoredItem(outboxItemSchema, config().tables.requests, item);
      if (!(await isFinal(event.requestId))) continue;
      const endpoints =
        typeof endpointsAsOf === "string"
          ? listEndpointRecords(event.workspaceId).then((all) => all.filter((x) => x.createdAt <= endpointsAsOf))
          : undefined;
      if (await deliverEvent(event, undefined, endpoints)) relayed += 1;
    } catch (err) {
      logger.error("outbox relay: event left for the next run", {
        requestId: item.requestId,
        outbox: `${String(item.pk)} ${String(item.sk)}`,
        error: err instanceof Error ? err : String(err),
      });
    }
  }
  return relayed;
}
