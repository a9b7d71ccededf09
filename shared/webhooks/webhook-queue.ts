import * as z from "zod";
import { sqs } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { logger } from "#shared/observability/logger.ts";

/**
 * One webhook-queue message: "make attempt `attempt` of this delivery". It names the
 * delivery item and carries what the item must not store: the plaintext passcodes of a
 * sync request's first delivery (kept by that delivery's retries, never by a redelivery).
 */
export interface DispatchMessage {
  deliveryId: string;
  endpointId: string;
  /** The delivery's workspace: its in-flight cap is checked before the attempt is claimed. */
  workspaceId?: string;
  /** Sort-key part of the delivery item. */
  createdAt: string;
  attempt: number;
  /** Epoch ms before which the attempt must not run (waits over SQS's 15 min are chained). */
  notBefore?: number;
  manual?: boolean;
  passcodes?: Record<string, string>;
}

const messageSchema = z.object({
  deliveryId: z.string().min(1),
  endpointId: z.string().min(1),
  workspaceId: z.string().min(1).optional(),
  createdAt: z.string().min(1),
  attempt: z.number().int().positive(),
  notBefore: z.number().optional(),
  manual: z.boolean().optional(),
  passcodes: z.record(z.string(), z.string()).optional(),
});

/** Parses a message body; throws on anything else (a bug or a foreign message). */
export const parseDispatchMessage = (body: string): DispatchMessage => messageSchema.parse(JSON.parse(body));

/** SQS allows at most 900 s of DelaySeconds. */
export const MAX_SQS_DELAY_SECONDS = 900;

/** Whole seconds to delay a message so it arrives at (or before) `notBefore`, at most 900. */
export function sqsDelaySeconds(notBefore: number | undefined, nowMs: number): number {
  if (notBefore === undefined) return 0;
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.floor((notBefore - nowMs) / 1000)));
}

/** Sends messages to the webhook queue, ten per batch, each with its own delay. */
export async function sendDispatchMessages(messages: DispatchMessage[], nowMs = Date.now()): Promise<void> {
  const QueueUrl = config().queues.webhook;
  for (let i = 0; i < messages.length; i += 10) {
    const entries = messages.slice(i, i + 10).map((m, j) => ({
      Id: String(j),
      MessageBody: JSON.stringify(m),
      DelaySeconds: sqsDelaySeconds(m.notBefore, nowMs),
    }));
    const { client, sdk } = await sqs();
    const out = await client.send(new sdk.SendMessageBatchCommand({ QueueUrl, Entries: entries }));
    if (out.Failed?.length)
      throw new Error(`webhook queue refused ${out.Failed.length} message(s): ${out.Failed[0]!.Message}`);
  }
}

/**
 * Parks a delivery whose schedule is exhausted on the webhook DLQ for operators (the
 * delivery log already says `failed`). Skipped when no DLQ URL is configured.
 */
export async function sendToDeadLetter(message: DispatchMessage, reason: string): Promise<void> {
  const QueueUrl = config().queues.webhookDlq;
  if (!QueueUrl) {
    logger.warn("webhook DLQ not configured", { deliveryId: message.deliveryId });
    return;
  }
  const { passcodes: _secretless, ...rest } = message;
  const { client, sdk } = await sqs();
  await client.send(new sdk.SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ ...rest, reason }) }));
}
