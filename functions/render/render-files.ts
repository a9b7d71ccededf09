import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { systemClock } from "#shared/clock.ts";
import { renderQueuedBatch } from "#shared/generation/render-batch.ts";
import { getRenderer } from "#shared/render/renderer.ts";

/**
 * Render worker: one SQS batch, files rendered side by side (the renderer's pool bounds
 * the work), the store calls shared by the batch; each failure reported through
 * `batchItemFailures` so only its messages retry.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures = await renderQueuedBatch(event.Records, { clock: systemClock, renderer: getRenderer() });
  for (const { messageIds, error } of failures) {
    const reason = String((error as Error | undefined)?.stack ?? error);
    console.error(JSON.stringify({ level: "error", msg: "render failed, will retry", messageIds, error: reason }));
  }
  return { batchItemFailures: failures.flatMap((f) => f.messageIds.map((itemIdentifier) => ({ itemIdentifier }))) };
}
