import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { systemClock } from "#shared/clock.ts";
import { renderQueuedFile } from "#shared/generation/render-file.ts";
import { parseRenderMessage } from "#shared/generation/render-queue.ts";
import { getRenderer } from "#shared/render/renderer.ts";

/**
 * Render worker: one SQS batch, files rendered side by side (the renderer's pool bounds
 * the work), each failure reported alone through `batchItemFailures` so only it retries.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const deps = { clock: systemClock, renderer: getRenderer() };
  const results = await Promise.allSettled(event.Records.map((r) => renderQueuedFile(parseRenderMessage(r.body), deps)));
  const batchItemFailures = results.flatMap((result, i) => {
    if (result.status === "fulfilled") return [];
    console.error(JSON.stringify({ level: "error", msg: "render failed, will retry", messageId: event.Records[i]!.messageId, error: String(result.reason?.stack ?? result.reason) }));
    return [{ itemIdentifier: event.Records[i]!.messageId }];
  });
  return { batchItemFailures };
}
