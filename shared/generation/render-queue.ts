import { SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";

/** A render message names a file; everything else is read from the stores (≤ 1 KiB). */
export interface RenderMessage {
  workspaceId: string;
  requestId: string;
  fileId: string;
}

/** One SQS message per file, sent 10 per call (SendMessageBatch), failures retried once. */
export async function sendRenderMessages(messages: RenderMessage[]): Promise<void> {
  const QueueUrl = config().queues.render;
  const batches: RenderMessage[][] = [];
  for (let i = 0; i < messages.length; i += 10) batches.push(messages.slice(i, i + 10));
  await Promise.all(
    batches.map(async (batch) => {
      let entries = batch.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) }));
      for (let attempt = 0; entries.length && attempt < 3; attempt++) {
        const out = await awsClients().sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: entries }));
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        entries = entries.filter((e) => failed.has(e.Id));
      }
      if (entries.length) throw new Error(`could not enqueue ${entries.length} render messages`);
    }),
  );
}

export function parseRenderMessage(body: string): RenderMessage {
  const m = JSON.parse(body) as Partial<RenderMessage>;
  if (typeof m.workspaceId !== "string" || typeof m.requestId !== "string" || typeof m.fileId !== "string") {
    throw new Error("malformed render message");
  }
  return m as RenderMessage;
}
