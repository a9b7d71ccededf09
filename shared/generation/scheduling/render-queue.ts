import type { SendMessageBatchRequestEntry } from "@aws-sdk/client-sqs";
import { sqs } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { type Environment, environment, positiveNumber } from "#shared/config/settings.ts";
import { queues } from "#shared/definitions/queues.ts";
import { logger } from "#shared/observability/logger.ts";

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
        const { client, sdk } = await sqs();
        const out = await client.send(new sdk.SendMessageBatchCommand({ QueueUrl, Entries: entries }));
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

/** A render message that failed this delivery, as its SQS record names it. */
export interface FailedDelivery {
  receiptHandle: string;
  /** Deliveries so far, this one included (the record's `ApproximateReceiveCount`). */
  receiveCount: number;
}

/** The first retry's wait by default: the render queue's visibility time-out over 24. */
export const DEFAULT_RETRY_SECONDS = 30;
/** Each retry of a failed file waits this many times longer than the one before... */
const RETRY_GROWTH = 4;
/** ...up to this many first waits (the visibility time-out with the defaults). */
const RETRY_LONGEST = queues.render.visibilityTimeoutSeconds / DEFAULT_RETRY_SECONDS;

/**
 * Seconds a file whose render failed (a store or browser error, not its document's) waits before its next
 * attempt: `firstSeconds` after the first delivery, 4× longer after each further one, at most the render
 * queue's visibility time-out (24 × the default 30 s = 12 min), which is what every retry waited before.
 * Plus up to a tenth of jitter, so a batch that failed together does not come back together.
 */
export function retryDelaySeconds(
  receiveCount: number,
  firstSeconds: number,
  random: () => number = Math.random,
): number {
  const growth = RETRY_GROWTH ** Math.max(0, Math.min(8, receiveCount - 1));
  const base = firstSeconds * Math.min(RETRY_LONGEST, growth);
  return Math.min(43_200, Math.round(base * (1 + random() / 10)));
}

/**
 * `PLATEN_RENDER_RETRY_SECONDS`: the first retry's wait (a positive number, default 30; the local stack
 * scales it with `PLATEN_VISIBILITY_SCALE`, so a fraction is allowed: each wait is rounded to whole seconds).
 */
export const readRetrySeconds = (env: Environment = environment()): number =>
  positiveNumber(env, "PLATEN_RENDER_RETRY_SECONDS") ?? DEFAULT_RETRY_SECONDS;

/**
 * Brings failed render messages back after their retry delay instead of the visibility time-out: a
 * transient error costs a file half a minute, not twelve. Their receive count still grows, so the
 * dead-letter queue still takes a file after `maxReceiveCount` failed attempts (about 22 minutes with
 * the default delays, an hour before). Best effort: a message this cannot reach keeps the time-out.
 */
export async function retryLater(failed: FailedDelivery[], firstSeconds: number): Promise<void> {
  const QueueUrl = config().queues.render;
  for (let i = 0; i < failed.length; i += 10) {
    const entries = failed.slice(i, i + 10).map((f, k) => ({
      Id: String(k),
      ReceiptHandle: f.receiptHandle,
      VisibilityTimeout: retryDelaySeconds(f.receiveCount, firstSeconds),
    }));
    try {
      const { client, sdk } = await sqs();
      const out = await client.send(new sdk.ChangeMessageVisibilityBatchCommand({ QueueUrl, Entries: entries }));
      if (out.Failed?.length) logger.warn("render retry not brought forward", { messages: out.Failed.length });
    } catch (error) {
      logger.warn("render retry not brought forward", { messages: entries.length, error: String(error) });
    }
  }
}
