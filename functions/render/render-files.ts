// First: starts Chromium before the other modules load (a cold start's init phase).
import "#shared/render/launch-at-init.ts";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import {
  fairRenderingFromEnv,
  parseRenderMessage,
  readRetrySeconds,
  retryLater,
} from "#shared/generation/scheduling/index.ts";
import { renderQueuedBatch } from "#shared/generation/worker/index.ts";
import { logger, sharedLogKeys, startLogContext } from "#shared/observability/logger.ts";
import { flushMetrics } from "#shared/observability/metrics.ts";
import { measuredRenderer } from "#shared/render/measured-renderer.ts";
import { getRenderer, launchAtInit } from "#shared/render/renderer.ts";

launchAtInit();

/**
 * Render worker: one SQS batch, files rendered side by side (the renderer's pool bounds
 * the work), the store calls shared by the batch; each failure reported through
 * `batchItemFailures` so only its messages retry, after a short back-off rather than the queue's
 * visibility time-out (render-queue.ts `retryLater`). Each workspace renders at most its cap
 * of files at once across containers; the rest go back to the queue (fair-render.ts).
 */
export async function handler(event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  startLogContext(context, sharedLogKeys(event.Records.flatMap((r) => messageOf(r.body))));
  try {
    const remainingMs = () => context?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY;
    const deps = {
      clock: systemClock,
      renderer: measuredRenderer(getRenderer()),
      siteUrl: config().siteUrl,
      fair: fairRenderingFromEnv(remainingMs),
    };
    const failures = await renderQueuedBatch(event.Records, deps);
    for (const { messageIds, error } of failures)
      logger.error("render failed, will retry", { messageIds, error: asError(error) });
    const failed = new Set(failures.flatMap((f) => f.messageIds));
    if (failed.size)
      await retryLater(
        event.Records.filter((r) => failed.has(r.messageId)).map((r) => ({
          receiptHandle: r.receiptHandle,
          receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
        })),
        readRetrySeconds(),
      );
    return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
  } finally {
    flushMetrics();
  }
}

/** The ids of a message for the log keys; a malformed one is reported by the batch itself. */
function messageOf(body: string) {
  try {
    return [parseRenderMessage(body)];
  } catch {
    return [];
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
