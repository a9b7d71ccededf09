import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { serviceName } from "#shared/aws/config.ts";
import { METRICS_NAMESPACE, metricNames } from "./metric-names.ts";

/** The `service` dimension every metric carries (POWERTOOLS_SERVICE_NAME, set by the stack). */
const METRICS_SERVICE = serviceName();

/**
 * Powertools' metrics as CloudWatch embedded metric format: JSON lines on stdout that
 * CloudWatch turns into metrics, no API call. POWERTOOLS_METRICS_DISABLED=true silences
 * them (the local stack sets it unless asked otherwise, see infra/README.md).
 */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });

/** One successful render: counted, its pages and its duration. */
export function recordRender(pages: number, ms: number): void {
  metrics.addMetric(metricNames.renders, MetricUnit.Count, 1);
  metrics.addMetric(metricNames.pages, MetricUnit.Count, pages);
  metrics.addMetric(metricNames.renderTime, MetricUnit.Milliseconds, ms);
}

/** One failed render: in the total (alarms) and, at once, by its code (the dashboard). */
export function recordRenderFailure(code: string): void {
  metrics.addMetric(metricNames.renderFailures, MetricUnit.Count, 1);
  countBy(metricNames.renderFailures, "code", code);
}

/** One webhook attempt by its outcome (delivered, retry, failed, skipped). */
export function recordWebhookAttempt(outcome: string): void {
  countBy(metricNames.webhookAttempts, "outcome", outcome);
}

/** A count with one extra dimension, published at once as its own EMF line. */
function countBy(name: string, dimension: string, value: string): void {
  const single = metrics.singleMetric();
  single.addDimension(dimension, value);
  single.addMetric(name, MetricUnit.Count, 1);
}

/** Publishes what this invocation recorded (nothing, and no warning, when it recorded nothing). */
export function flushMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
