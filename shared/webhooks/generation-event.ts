import * as z from "zod";

/**
 * The event shapes (zod schemas, the truth of the stored items; the types are inferred), layered: a generation records a `GenerationEvent` in its outbox
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
export const generationEventSchema = z.object({
  event: z.enum(["file.completed", "file.failed"]),
  workspaceId: z.string(),
  requestId: z.string(),
  designId: z.string(),
  version: z.number(),
  fileIds: z.array(z.string()),
  webhookUrl: z.string().optional(),
  errorCode: z.string().optional(),
  /** When the event happened (the request finished), not when a delivery attempt is made. */
  timestamp: z.string(),
});
export type GenerationEvent = z.infer<typeof generationEventSchema>;

/**
 * The event a delivery carries, as recorded when the request finished (see
 * shared/webhooks/README.md#which-endpoints-get-what).
 */
export const deliveryEventSchema = generationEventSchema.omit({ webhookUrl: true }).extend({ deliveryId: z.string() });
export type DeliveryEvent = z.infer<typeof deliveryEventSchema>;
