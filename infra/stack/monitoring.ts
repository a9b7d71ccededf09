import { Duration } from "aws-cdk-lib";
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  type IMetric,
  type Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import { Construct } from "constructs";
import type { PlatenApi } from "./api.ts";
import { appMetricAlarms, appMetricWidgets } from "./app-metrics.ts";
import type { PlatenData } from "./data.ts";
import type { PlatenFunction } from "./platen-function.ts";
import type { StageSettings } from "./stage.ts";

const PERIOD = Duration.minutes(5);
/** The render queue's oldest message may wait this long before an alarm. */
const RENDER_BACKLOG_MINUTES = 30;

/** Error-rate alarms fire above this percentage in 2 of 3 periods. */
const ERROR_RATE_PERCENT = 5;
/** Below this many requests per period a rate is noise (one failure of two is 50 %). */
const MIN_SAMPLES = 10;

export interface PlatenMonitoringProps {
  settings: StageSettings;
  api: PlatenApi;
  data: PlatenData;
  functions: Readonly<Record<string, PlatenFunction>>;
  /** Context `alarmEmail`: alarms notify an SNS topic with this subscriber. */
  alarmEmail?: string;
}

/**
 * Alarms and a dashboard. Alarms: any message in a DLQ, error rate of every queue consumer
 * (render errors, webhook dispatch failures — added as those functions land), API 5xx rate,
 * and on the functions' own metrics (app-metrics.ts) the render p95 and failure rate.
 */
export class PlatenMonitoring extends Construct {
  readonly alarms: Alarm[] = [];
  readonly topic: Topic | undefined;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: PlatenMonitoringProps,
  ) {
    super(scope, id);
    this.topic = props.alarmEmail
      ? new Topic(this, "Alarms", { displayName: `Platen ${props.settings.stage} alarms` })
      : undefined;
    if (this.topic && props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.addDlqAlarms();
    this.addRenderBacklogAlarm();
    this.addConsumerErrorAlarms();
    this.addApiAlarm();
    this.alarms.push(...appMetricAlarms(this, props.settings));
    if (this.topic) {
      const action = new SnsAction(this.topic);
      for (const alarm of this.alarms) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
    this.addDashboard();
  }

  private addDlqAlarms(): void {
    for (const { definition, dlq } of Object.values(this.props.data.queues)) {
      // Maximum, not Average: a single dead letter must page someone.
      const metric = dlq.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: "Maximum",
      });
      this.alarms.push(
        new Alarm(this, `Dlq-${definition.dlq.id}`, {
          alarmName: `${this.props.settings.prefix}-${definition.dlq.id}-not-empty`,
          alarmDescription: `Messages in ${definition.dlq.id}: ${definition.purpose} failed ${definition.maxReceiveCount} times.`,
          metric,
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
  }

  /**
   * A render message nobody received for 30 minutes: the whole fleet is behind (deferred
   * files go back as new messages, so a workspace held at its fair share does not age the
   * queue). Well before the sweeper's 75-minute render deadline fails such files.
   */
  private addRenderBacklogAlarm(): void {
    const render = this.props.data.queues.render;
    if (!render) return;
    this.alarms.push(
      new Alarm(this, "RenderBacklogAge", {
        alarmName: `${this.props.settings.prefix}-render-backlog-age`,
        alarmDescription: `A render message waited over ${RENDER_BACKLOG_MINUTES} minutes unreceived: rendering is behind; files still waiting 75 minutes after their last sign of life are failed by the sweeper.`,
        metric: render.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: "Maximum" }),
        threshold: RENDER_BACKLOG_MINUTES * 60,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private addConsumerErrorAlarms(): void {
    for (const { definition } of Object.values(this.props.data.queues)) {
      const consumer = this.props.functions[definition.consumer];
      if (!consumer) continue;
      const errors = consumer.fn.metricErrors({ period: PERIOD, statistic: "Sum" });
      const invocations = consumer.fn.metricInvocations({ period: PERIOD, statistic: "Sum" });
      this.addRateAlarm(
        `${definition.consumer}-error-rate`,
        errors,
        invocations,
        `Error rate of ${definition.consumer} (consumer of ${definition.id}: ${definition.purpose}).`,
      );
    }
  }

  private addApiAlarm(): void {
    const api = this.props.api.restApi;
    const errors = api.metricServerError({ period: PERIOD, statistic: "Sum" });
    const count = api.metricCount({ period: PERIOD, statistic: "Sum" });
    this.addRateAlarm(
      "api-5xx-rate",
      errors,
      count,
      "Share of API requests answered with 5xx (includes 504 sync time-outs).",
    );
  }

  private addRateAlarm(name: string, errors: IMetric, total: IMetric, description: string): void {
    const rate = new MathExpression({
      expression: `IF(total >= ${MIN_SAMPLES}, 100 * errors / total, 0)`,
      usingMetrics: { errors, total },
      period: PERIOD,
      label: `${name} (%)`,
    });
    this.alarms.push(
      new Alarm(this, name, {
        alarmName: `${this.props.settings.prefix}-${name}`,
        alarmDescription: description,
        metric: rate,
        threshold: ERROR_RATE_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private addDashboard(): void {
    const { api, data, functions, settings } = this.props;
    const rest = api.restApi;
    const queues = Object.values(data.queues).flatMap(({ definition: d, queue, dlq }) => [
      { label: d.id, queue },
      { label: d.dlq.id, queue: dlq },
    ]);
    const fns = Object.values(functions);
    const widget = (title: string, left: IMetric[]) => new GraphWidget({ title, left, width: 12 });
    const each = <T>(items: T[], metric: (item: T) => Metric) => items.map(metric);
    new Dashboard(this, "Dashboard", {
      dashboardName: `${settings.prefix}-operations`,
      widgets: [
        [
          widget("API latency (ms)", [
            rest.metricLatency({ statistic: "p50", label: "p50" }),
            rest.metricLatency({ statistic: "p99", label: "p99" }),
            rest.metricIntegrationLatency({ statistic: "p99", label: "integration p99" }),
          ]),
          widget("API requests and errors", [
            rest.metricCount({ statistic: "Sum" }),
            rest.metricClientError({ statistic: "Sum" }),
            rest.metricServerError({ statistic: "Sum" }),
          ]),
        ],
        [
          widget(
            "Queue depth (visible)",
            each(queues, (q) =>
              q.queue.metricApproximateNumberOfMessagesVisible({ statistic: "Maximum", label: q.label }),
            ),
          ),
          widget(
            "Oldest message age (s)",
            each(queues, (q) => q.queue.metricApproximateAgeOfOldestMessage({ statistic: "Maximum", label: q.label })),
          ),
        ],
        [
          widget(
            "Function errors",
            each(fns, (f) => f.fn.metricErrors({ statistic: "Sum", label: f.definition.id })),
          ),
          widget(
            "Function duration p99 (ms)",
            each(fns, (f) => f.fn.metricDuration({ statistic: "p99", label: f.definition.id })),
          ),
        ],
        ...appMetricWidgets(settings),
      ],
    });
  }
}
