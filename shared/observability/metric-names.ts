/**
 * Names of Platen's own CloudWatch metrics, read by the code that records them
 * (metrics.ts) and by the CDK dashboard and alarms (infra/stack/app-metrics.ts).
 * Every metric carries the `service` dimension (POWERTOOLS_SERVICE_NAME: `platen-<stage>`
 * in AWS, `platen` locally); the `*By*` ones carry one more.
 */
export const METRICS_NAMESPACE = "Platen";

export const metricNames = {
  /** Documents rendered (sync and async), Count. */
  renders: "Renders",
  /** Pages of those documents, Count. */
  pages: "Pages",
  /** Template to PDF bytes per document, Milliseconds. */
  renderTime: "RenderTime",
  /** Renders that failed, Count; also by dimension `code` (a RenderError code). */
  renderFailures: "RenderFailures",
  /** Webhook delivery attempts, Count, by dimension `outcome` (delivered, retry, failed, skipped). */
  webhookAttempts: "WebhookAttempts",
} as const;
