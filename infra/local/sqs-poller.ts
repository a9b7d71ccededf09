import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { inInvocation } from "./invocation-scope.ts";

export interface PollerOptions {
  name: string;
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  /** Concurrent batches, like the event-source mapping's maximum concurrency. */
  maxConcurrency: number;
  // biome-ignore lint/suspicious/noConfusingVoidType: Lambda SQS handlers may return nothing at all
  handler: (event: SQSEvent, context: unknown) => Promise<SQSBatchResponse | undefined | void>;
  context?: () => unknown;
  /** Long-poll wait; short in tests so stop() is quick. */
  waitSeconds?: number;
}

export interface Poller {
  stop(): Promise<void>;
}

/**
 * Invokes an SQS-triggered handler like a Lambda event-source mapping: batches of up to
 * `batchSize`, `batchItemFailures` honoured (only failed messages stay on the queue),
 * a thrown error fails the whole batch. Failed messages reappear after the queue's
 * visibility time-out; the queue's redrive policy moves them to the DLQ after
 * `maxReceiveCount` receives (fauxqs implements redrive as SQS does).
 */
export function startSqsPoller(opts: PollerOptions): Poller {
  let running = true;
  const loops = Array.from({ length: opts.maxConcurrency }, () => pollLoop(opts, () => running));
  return {
    stop: async () => {
      running = false;
      await Promise.allSettled(loops);
    },
  };
}

async function pollLoop(opts: PollerOptions, isRunning: () => boolean): Promise<void> {
  while (isRunning()) {
    let messages: Message[] = [];
    try {
      const out = await opts.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: opts.queueUrl,
          MaxNumberOfMessages: opts.batchSize,
          WaitTimeSeconds: opts.waitSeconds ?? 1,
          MessageSystemAttributeNames: ["All"],
          MessageAttributeNames: ["All"],
        }),
      );
      messages = out.Messages ?? [];
    } catch (err) {
      if (!isRunning()) return;
      console.error(`[${opts.name}] receive failed: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    if (messages.length) await invokeBatch(opts, messages);
  }
}

async function invokeBatch(opts: PollerOptions, messages: Message[]): Promise<void> {
  const event: SQSEvent = { Records: messages.map((m) => toRecord(m, opts.queueArn)) };
  let failed: Set<string>;
  try {
    const context = opts.context?.() ?? {};
    const requestId = (context as { awsRequestId?: string }).awsRequestId ?? crypto.randomUUID();
    const result = await inInvocation(requestId, () => opts.handler(event, context));
    failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    // Like Lambda: an identifier that is not in the batch makes the whole batch a failure.
    if ([...failed].some((id) => !messages.some((m) => m.MessageId === id)))
      failed = new Set(messages.map((m) => m.MessageId!));
  } catch (err) {
    console.error(`[${opts.name}] batch failed: ${(err as Error).message}`);
    failed = new Set(messages.map((m) => m.MessageId!));
  }
  const done = messages.filter((m) => !failed.has(m.MessageId!));
  if (!done.length) return;
  await opts.sqs
    .send(
      new DeleteMessageBatchCommand({
        QueueUrl: opts.queueUrl,
        Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    )
    .catch((err: Error) => console.error(`[${opts.name}] delete failed: ${err.message}`));
}

function toRecord(m: Message, queueArn: string): SQSRecord {
  const attrs = m.Attributes ?? {};
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? "",
    attributes: {
      ApproximateReceiveCount: attrs.ApproximateReceiveCount ?? "1",
      SentTimestamp: attrs.SentTimestamp ?? String(Date.now()),
      SenderId: attrs.SenderId ?? "local",
      ApproximateFirstReceiveTimestamp: attrs.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
        k,
        {
          dataType: v.DataType ?? "String",
          stringValue: v.StringValue,
          binaryValue: v.BinaryValue as unknown as string,
        },
      ]),
    ),
    md5OfBody: m.MD5OfBody ?? "",
    eventSource: "aws:sqs",
    eventSourceARN: queueArn,
    awsRegion: "us-east-1",
  };
}
