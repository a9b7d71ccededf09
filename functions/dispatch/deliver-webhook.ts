import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { listFileRecords } from "#shared/generation/store/index.ts";
import { logger, startLogContext } from "#shared/observability/logger.ts";
import { flushMetrics } from "#shared/observability/metrics.ts";
import { dispatchDelivery } from "#shared/webhooks/dispatch-delivery.ts";
import { dynamoDispatchLeases } from "#shared/webhooks/dispatch-leases.ts";
import { parseDispatchMessage } from "#shared/webhooks/webhook-queue.ts";
import { webhookSettings } from "#shared/webhooks/webhook-settings.ts";

/** Deliveries run on real time: receivers check signatures against their own clocks. */
const realClock: Clock = { now: () => new Date() };

/**
 * Webhook dispatcher: one SQS batch, every delivery attempt side by side, so a slow or
 * failing endpoint (cut at its 15 s deadline) never holds up another. A message whose
 * attempt another invocation is still making, or that failed unexpectedly, is reported
 * in `batchItemFailures` and comes back after the visibility time-out. Each attempt's log
 * line names its request and workspace (a batch may mix them). Each workspace may have only its cap of
 * attempts in flight across dispatchers; its other messages go back to the queue for a second or two
 * (shared/webhooks/README.md#fair-delivery-across-workspaces).
 */
export async function handler(event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  startLogContext(context);
  const deps = {
    clock: realClock,
    env: config().env,
    siteUrl: config().siteUrl,
    settings: webhookSettings(),
    // Reads only: the dispatcher sends to customers' URLs and may not write file records.
    listFiles: (requestId: string) => listFileRecords(requestId, { record: false }),
    // Per-workspace in-flight cap; a workspace found full is not read again in this batch.
    fairness: { leases: dynamoDispatchLeases, refused: new Set<string>() },
  };
  try {
    // Parsed inside each message's own promise: a malformed one fails alone, never its batch.
    const results = await Promise.allSettled(
      event.Records.map(async (r) => dispatchDelivery(parseDispatchMessage(r.body), deps)),
    );
    const batchItemFailures = results.flatMap((result, i) => {
      if (result.status === "fulfilled" && result.value !== "busy") return [];
      // Only the message id: the body carries passcodes.
      if (result.status === "rejected")
        logger.error("webhook dispatch failed, will retry", {
          messageId: event.Records[i]!.messageId,
          error: asError(result.reason),
        });
      return [{ itemIdentifier: event.Records[i]!.messageId }];
    });
    return { batchItemFailures };
  } finally {
    flushMetrics();
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
