/**
 * The event shapes, layered: a generation records a `GenerationEvent` in its outbox
 * (event-outbox.ts); each endpoint it routes to gets a `DeliveryEvent`, the same event
 * under a delivery id without the routing-only `webhookUrl`; the delivery log's
 * `DeliveryRecord` (delivery-store.ts) adds the attempts to that.
 */

/**
 * A generation event (see shared/webhooks/README.md#which-endpoints-get-what) recorded for the webhook
 * dispatcher: which request, which files, and whether it was addressed to one `webhookUrl`. Payloads are built
 * from the file records at delivery time, so no params (and no passcode) are stored here.
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
  /** When the event happened (the request finished), not when a delivery attempt is made. */
  timestamp: string;
}

/**
 * The event a delivery carries, as recorded when the request finished (see
 * shared/webhooks/README.md#which-endpoints-get-what).
 */
export interface DeliveryEvent extends Omit<GenerationEvent, "webhookUrl"> {
  deliveryId: string;
}
