import { SendMessageBatchCommand, type SendMessageBatchRequestEntry } from "@aws-sdk/client-sqs";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";

/** A render message names a file; everything else is read from the stores (≤ 1 KiB). */
export interface RenderMessage {
  workspaceId: string;
  requestId: string;
  fileId: string;
  /** Times the message went back to the queue before its render started (fair-share.ts). */
  deferrals?: number;
  /** When a worker last recorded the request's rendering alive for this file (ISO; see `markRenderAlive`). */
  aliveAt?: string;
}

/** A message to send again after `delaySeconds` (a deferral, see render-batch.ts). */
export interface DelayedRenderMessage {
  message: RenderMessage;
  delaySeconds: number;
}

/** One SQS message per file, sent 10 per call (SendMessageBatch), failed entries retried. */
export function sendRenderMessages(messages: RenderMessage[]): Promise<void> {
  return sendDelayedRenderMessages(messages.map((message) => ({ message, delaySeconds: 0 })));
}

/**
 * Sends render messages, each with its own delay. The workspace is the message group:
 * on an SQS standard queue that makes it a fair queue in AWS (a workspace with a backlog
 * does not hold back the others' messages); fauxqs accepts and ignores it.
 */
export async function sendDelayedRenderMessages(messages: DelayedRenderMessage[]): Promise<void> {
  const { unsent, error } = await sendEach(messages);
  if (unsent.length) throw error ?? new Error(`could not enqueue ${unsent.length} render messages`);
}

/**
 * Sends every message it can and says which were not sent: one batch failing does not hide that the others
 * were queued (async acceptance must know exactly which files will render, accept-async.ts).
 */
export async function sendRenderMessagesReporting(
  messages: RenderMessage[],
): Promise<{ unsent: RenderMessage[]; error?: unknown }> {
  const out = await sendEach(messages.map((message) => ({ message, delaySeconds: 0 })));
  return { unsent: out.unsent.map((m) => m.message), ...(out.error !== undefined && { error: out.error }) };
}

async function sendEach(
  messages: DelayedRenderMessage[],
): Promise<{ unsent: DelayedRenderMessage[]; error?: unknown }> {
  const QueueUrl = config().queues.render;
  const batches: DelayedRenderMessage[][] = [];
  for (let i = 0; i < messages.length; i += 10) batches.push(messages.slice(i, i + 10));
  const results = await Promise.allSettled(
    batches.map(async (batch) => {
      let entries: SendMessageBatchRequestEntry[] = batch.map(({ message, delaySeconds }, i) => ({
        Id: String(i),
        MessageBody: JSON.stringify(message),
        MessageGroupId: message.workspaceId,
        ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
      }));
      for (let attempt = 0; entries.length && attempt < 3; attempt++) {
        const out = await awsClients().sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: entries }));
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        entries = entries.filter((e) => failed.has(e.Id));
      }
      return entries.map((e) => batch[Number(e.Id)]!);
    }),
  );
  const unsent: DelayedRenderMessage[] = [];
  let error: unknown;
  results.forEach((r, i) => {
    if (r.status === "fulfilled") unsent.push(...r.value);
    else {
      // A thrown call may still have queued its batch; counted unsent, the files are failed before any
      // render can claim them, and a render that claims first settles its file (settleOnce is conditional).
      unsent.push(...batches[i]!);
      error ??= r.reason;
    }
  });
  return { unsent, ...(error !== undefined && { error }) };
}

export function parseRenderMessage(body: string): RenderMessage {
  const m = JSON.parse(body) as Partial<RenderMessage>;
  if (typeof m.workspaceId !== "string" || typeof m.requestId !== "string" || typeof m.fileId !== "string") {
    throw new Error("malformed render message");
  }
  const deferrals = Number.isInteger(m.deferrals) && m.deferrals! > 0 ? m.deferrals : undefined;
  const aliveAt = typeof m.aliveAt === "string" && !Number.isNaN(Date.parse(m.aliveAt)) ? m.aliveAt : undefined;
  return {
    workspaceId: m.workspaceId,
    requestId: m.requestId,
    fileId: m.fileId,
    ...(deferrals ? { deferrals } : {}),
    ...(aliveAt ? { aliveAt } : {}),
  };
}
