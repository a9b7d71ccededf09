import { Duration } from "aws-cdk-lib";
import {
  Alarm,
  ComparisonOperator,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IWidget,
} from "aws-cdk-lib/aws-cloudwatch";
import type { Construct } from "constructs";
import { METRICS_NAMESPACE, metricNames } from "#shared/observability/metric-names.ts";
import type { StageSettings } from "./stage.ts";

const PERIOD = Duration.minutes(5);
/** A render p95 above this (ms) for 2 of 3 periods pages someone: the sync budget is 60 s. */
export const RENDER_P95_ALARM_MS = 10_000;
/** Render failures above this percentage of renders in 2 of 3 periods. */
const RENDER_FAILURE_PERCENT = 5;
/** Below this many renders per period a failure rate is noise. */
const MIN_RENDERS = 10;

/**
 * The functions' own metrics (shared/observability, EMF) as CloudWatch sees them: namespace
 * `Platen`, dimension `service` = the stage's prefix (POWERTOOLS_SERVICE_NAME of every function).
 */
export function appMetric(settings: StageSettings, name: string, statistic: string, label?: string): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: settings.prefix },
    statistic,
    period: PERIOD,
    label,
  });
}

/** Every value of a metric's extra dimension (failure code, webhook outcome), one line each. */
function searchBy(settings: StageSettings, name: string, dimension: string, label: string): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${dimension},service} MetricName="${name}" service="${settings.prefix}"', 'Sum', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    period: PERIOD,
    label,
  });
}

/** Dashboard rows: renders and pages, render time, failures by code, webhook attempts by outcome. */
export function appMetricWidgets(settings: StageSettings): IWidget[][] {
  const widget = (title: string, left: (Metric | MathExpression)[]) => new GraphWidget({ title, left, width: 12 });
  return [
    [
      widget("Renders and pages", [
        appMetric(settings, metricNames.renders, "Sum", "renders"),
        appMetric(settings, metricNames.pages, "Sum", "pages"),
      ]),
      widget(
        "Render time (ms)",
        ["p50", "p95", "p99"].map((p) => appMetric(settings, metricNames.renderTime, p, p)),
      ),
    ],
    [
      widget("Render failures by code", [searchBy(settings, metricNames.renderFailures, "code", "failures")]),
      widget("Webhook attempts by outcome", [searchBy(settings, metricNames.webhookAttempts, "outcome", "attempts")]),
    ],
  ];
}

/** Alarms on the app metrics: render p95 and the render failure rate. */
export function appMetricAlarms(scope: Construct, settings: StageSettings): Alarm[] {
  const common = { evaluationPeriods: 3, datapointsToAlarm: 2, treatMissingData: TreatMissingData.NOT_BREACHING };
  const p95 = new Alarm(scope, "render-p95", {
    alarmName: `${settings.prefix}-render-p95`,
    alarmDescription: `95th percentile of the render time above ${RENDER_P95_ALARM_MS} ms (RenderTime, all renders).`,
    metric: appMetric(settings, metricNames.renderTime, "p95"),
    threshold: RENDER_P95_ALARM_MS,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    ...common,
  });
  const rate = new MathExpression({
    expression: `IF(renders + failures >= ${MIN_RENDERS}, 100 * failures / (renders + failures), 0)`,
    usingMetrics: {
      renders: appMetric(settings, metricNames.renders, "Sum"),
      failures: appMetric(settings, metricNames.renderFailures, "Sum"),
    },
    period: PERIOD,
    label: "render failures (%)",
  });
  const failures = new Alarm(scope, "render-failure-rate", {
    alarmName: `${settings.prefix}-render-failure-rate`,
    alarmDescription: `Render failures above ${RENDER_FAILURE_PERCENT} % of renders (RenderFailures / (Renders + RenderFailures)).`,
    metric: rate,
    threshold: RENDER_FAILURE_PERCENT,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    ...common,
  });
  return [p95, failures];
}
