import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { dispatchDelivery } from "#shared/webhooks/dispatch-delivery.ts";
import { parseDispatchMessage } from "#shared/webhooks/webhook-queue.ts";
import { webhookSettings } from "#shared/webhooks/webhook-settings.ts";

/** Deliveries run on real time: receivers check signatures against their own clocks. */
const realClock: Clock = { now: () => new Date() };

/**
 * Webhook dispatcher: one SQS batch, every delivery attempt side by side, so a slow or
 * failing endpoint (cut at its 15 s deadline) never holds up another. A message whose
 * attempt another invocation is still making, or that failed unexpectedly, is reported
 * in `batchItemFailures` and comes back after the visibility time-out.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const deps = { clock: realClock, env: config().env, siteUrl: config().siteUrl, settings: webhookSettings() };
  const results = await Promise.allSettled(event.Records.map((r) => dispatchDelivery(parseDispatchMessage(r.body), deps)));
  const batchItemFailures = results.flatMap((result, i) => {
    if (result.status === "fulfilled" && result.value !== "busy") return [];
    if (result.status === "rejected") {
      const error = String(result.reason?.stack ?? result.reason);
      console.error(JSON.stringify({ level: "error", msg: "webhook dispatch failed, will retry", messageId: event.Records[i]!.messageId, error }));
    }
    return [{ itemIdentifier: event.Records[i]!.messageId }];
  });
  return { batchItemFailures };
}
