import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { systemClock } from "#shared/clock.ts";
import { catalogue } from "#shared/errors/catalogue.ts";
import { failAndMaybeFinalize } from "#shared/generation/settle/index.ts";
import { getFileRecord } from "#shared/generation/store/index.ts";
import { parseRenderMessage } from "#shared/generation/scheduling/index.ts";

/**
 * Render DLQ consumer: a message that exhausted its receives means its file will not be
 * rendered. The file fails with GENERATION_INTERRUPTED and, if it was the last one, the
 * request is finalized ("generation process stopped", error GENERATION_INTERRUPTED).
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const results = await Promise.allSettled(
    event.Records.map(async (r) => {
      const msg = parseRenderMessage(r.body);
      const file = await getFileRecord(msg.requestId, msg.fileId);
      if (file?.status !== "queued") return;
      await failAndMaybeFinalize(
        file,
        { status: "failed", errorCode: "GENERATION_INTERRUPTED", errorMessage: catalogue.GENERATION_INTERRUPTED.en },
        systemClock,
      );
    }),
  );
  return {
    batchItemFailures: results.flatMap((r, i) =>
      r.status === "rejected" ? [{ itemIdentifier: event.Records[i]!.messageId }] : [],
    ),
  };
}
