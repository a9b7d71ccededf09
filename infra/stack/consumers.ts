import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { type PlatenData, VISIBILITY_FACTOR } from "./data.ts";
import type { PlatenFunction } from "./platen-function.ts";

/** DLQ consumers (e.g. `interrupted`) handle rare failures: small batches, default concurrency. */
const DLQ_BATCH_SIZE = 10;

/**
 * Event-source mappings for every queue whose consumer function exists (consumers join
 * functions.ts as their handlers land), and for dead-letter queues with a `dlq.consumer`.
 * Partial batch failures are reported so one bad message never retries its batch-mates.
 */
export function wireQueueConsumers(data: PlatenData, functions: Readonly<Record<string, PlatenFunction>>): void {
  for (const { definition: def, queue, dlq } of Object.values(data.queues)) {
    const consumer = functions[def.consumer];
    if (consumer) {
      assertVisibility(def.id, def.visibilityTimeoutSeconds, consumer);
      consumer.fn.addEventSource(
        new SqsEventSource(queue, {
          batchSize: def.batchSize,
          maxConcurrency: def.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      // The consumer may change visibility or re-queue (webhook back-off) on its own queue.
      consumer.addEnvironment(def.envVar, queue.queueUrl);
      if (def.workspaceWorkSeconds !== undefined)
        consumer.addEnvironment("PLATEN_RENDER_WORKSPACE_WORK_SECONDS", String(def.workspaceWorkSeconds));
    }
    const dlqConsumer = def.dlq.consumer ? functions[def.dlq.consumer] : undefined;
    if (dlqConsumer) wireDlqConsumer(dlq, def.dlq.envVar, dlqConsumer);
  }
}

function wireDlqConsumer(dlq: Queue, envVar: string, consumer: PlatenFunction): void {
  // data.ts already sized the DLQ's visibility time-out from this consumer's definition.
  consumer.fn.addEventSource(new SqsEventSource(dlq, { batchSize: DLQ_BATCH_SIZE, reportBatchItemFailures: true }));
  consumer.addEnvironment(envVar, dlq.queueUrl);
}

/**
 * A message must stay invisible while its batch is processed, with room for Lambda's own
 * retries; fail the synth instead of letting a slow consumer process messages twice.
 */
export function assertVisibility(queueId: string, visibilitySeconds: number, consumer: PlatenFunction): void {
  const required = VISIBILITY_FACTOR * consumer.definition.timeoutSeconds;
  if (visibilitySeconds < required) {
    throw new Error(
      `Queue ${queueId}: visibility time-out ${visibilitySeconds} s < ${VISIBILITY_FACTOR} × ` +
        `${consumer.definition.id}'s time-out (${required} s). Raise visibilityTimeoutSeconds in shared/definitions/queues.ts.`,
    );
  }
}
