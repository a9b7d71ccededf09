/**
 * SQS queues with their dead-letter queues and consumers. The CDK stack wires the
 * consumer as an event-source mapping; the local runner polls with the same batch size,
 * visibility time-out and redrive policy.
 */
export interface QueueDefinition {
  id: string;
  envVar: string;
  purpose: string;
  /** Consumer function id (functions.ts); wired only once that function exists. */
  consumer: string;
  batchSize: number;
  maxConcurrency: number;
  /** AWS advice: at least 6 × the consumer's time-out. */
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /**
   * Render only (PLATEN_RENDER_WORKSPACE_WORK_SECONDS, shared/generation/scheduling/fair-share.ts):
   * seconds of expected rendering one workspace may have in flight across all consumers
   * (its renders in flight × its average render time). 20 = 2 s on each of 10 browsers, a
   * quarter of the fleet's 20 batches × 2 browsers: slow documents of one workspace never
   * hold more, fast ones are barely limited.
   */
  workspaceWorkSeconds?: number;
  dlq: { id: string; envVar: string; consumer?: string; retentionDays: number };
}

export const queues = {
  render: {
    id: "render",
    envVar: "QUEUE_RENDER",
    purpose: "one message per file to render",
    consumer: "render",
    batchSize: 5,
    maxConcurrency: 20,
    visibilityTimeoutSeconds: 6 * 120,
    maxReceiveCount: 5,
    workspaceWorkSeconds: 20,
    dlq: { id: "render-dlq", envVar: "QUEUE_RENDER_DLQ", consumer: "interrupted", retentionDays: 14 },
  },
  webhook: {
    id: "webhook",
    envVar: "QUEUE_WEBHOOK",
    purpose: "one message per (event, endpoint) delivery attempt",
    consumer: "dispatch",
    batchSize: 10,
    maxConcurrency: 10,
    visibilityTimeoutSeconds: 6 * 30,
    maxReceiveCount: 5,
    dlq: { id: "webhook-dlq", envVar: "QUEUE_WEBHOOK_DLQ", retentionDays: 14 },
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueId = keyof typeof queues;
