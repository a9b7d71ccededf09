import { beforeAll, describe, expect, it } from "vitest";
import { buckets, queues, tables } from "#shared/definitions/index.ts";
import { pascalCase, sharedDefinitions } from "../../infra/stack/definitions.ts";
import { RENDER_P95_ALARM_MS } from "../../infra/stack/app-metrics.ts";
import { RENDER_DEADLINE_SECONDS } from "#shared/generation/async/index.ts";
import {
  type Cfn,
  definitionsWithConsumers,
  isAssetUploader,
  logicalId,
  resourcesOfType,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
  synthStack,
} from "./synth.ts";

const alarmsNamed = (s: Synthesized) =>
  new Map(resourcesOfType(s.json, "AWS::CloudWatch::Alarm").map(([, p]) => [p.AlarmName as string, p]));

describe("monitoring", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthStack({ definitions: definitionsWithConsumers(), alarmEmail: "ops@example.com" });
  }, SYNTH_TIMEOUT_MS);

  it("alarms on any message in every DLQ", () => {
    const alarms = alarmsNamed(s);
    for (const def of Object.values(queues)) {
      const alarm = alarms.get(`platen-dev-${def.dlq.id}-not-empty`)!;
      expect(alarm.MetricName).toBe("ApproximateNumberOfMessagesVisible");
      expect(alarm.Dimensions[0].Value["Fn::GetAtt"][0]).toBe(logicalId(s.stack, s.stack.data.queues[def.id]!.dlq));
      expect(alarm).toMatchObject({ Threshold: 0, ComparisonOperator: "GreaterThanThreshold", Statistic: "Maximum" });
    }
  });

  it("alarms when a render message waits 30 minutes unreceived (well before the sweeper's 75-minute render deadline)", () => {
    const alarm = alarmsNamed(s).get("platen-dev-render-backlog-age")!;
    expect(alarm.MetricName).toBe("ApproximateAgeOfOldestMessage");
    expect(alarm.Dimensions[0].Value["Fn::GetAtt"][0]).toBe(logicalId(s.stack, s.stack.data.queues.render!.queue));
    expect(alarm).toMatchObject({ Threshold: 1800, ComparisonOperator: "GreaterThanThreshold", Statistic: "Maximum" });
    expect(alarm.Threshold).toBeLessThan(RENDER_DEADLINE_SECONDS);
  });

  it("alarms on the render and webhook-dispatch error rates and the API 5xx rate", () => {
    const alarms = alarmsNamed(s);
    for (const name of ["render-error-rate", "dispatch-error-rate", "api-5xx-rate"]) {
      const alarm = alarms.get(`platen-dev-${name}`)!;
      expect(alarm, name).toBeDefined();
      expect(JSON.stringify(alarm.Metrics)).toMatch(name === "api-5xx-rate" ? /5XXError/ : /"Errors"/);
    }
  });

  it("alarms on the functions' own metrics: render p95 and render failure rate, per stage", () => {
    const alarms = alarmsNamed(s);
    expect(alarms.get("platen-dev-render-p95")).toMatchObject({
      Namespace: "Platen",
      MetricName: "RenderTime",
      ExtendedStatistic: "p95",
      Dimensions: [{ Name: "service", Value: "platen-dev" }],
      Threshold: RENDER_P95_ALARM_MS,
      ComparisonOperator: "GreaterThanThreshold",
    });
    const rate = alarms.get("platen-dev-render-failure-rate")!;
    const used = rate.Metrics.filter((m: Cfn) => m.MetricStat).map((m: Cfn) => [
      m.Id,
      m.MetricStat.Metric.Namespace,
      m.MetricStat.Metric.MetricName,
      m.MetricStat.Metric.Dimensions,
    ]);
    expect(used).toEqual([
      ["renders", "Platen", "Renders", [{ Name: "service", Value: "platen-dev" }]],
      ["failures", "Platen", "RenderFailures", [{ Name: "service", Value: "platen-dev" }]],
    ]);
    expect(rate.Metrics.find((m: Cfn) => m.Expression).Expression).toMatch(
      /100 \* failures \/ \(renders \+ failures\)/,
    );
  });

  it("names the service of every function's logs and metrics after the stage", () => {
    for (const [, fn] of resourcesOfType(s.json, "AWS::Lambda::Function").filter(
      ([, p]) => p.Environment?.Variables?.PLATEN_ENV,
    )) {
      expect(fn.Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe("platen-dev");
    }
  });

  it("sends every alarm to the SNS topic of alarmEmail", () => {
    expect(resourcesOfType(s.json, "AWS::SNS::Subscription")[0]![1]).toMatchObject({
      Protocol: "email",
      Endpoint: "ops@example.com",
    });
    for (const [, alarm] of resourcesOfType(s.json, "AWS::CloudWatch::Alarm"))
      expect(alarm.AlarmActions).toHaveLength(1);
  });

  it("has a dashboard with API, queue and function widgets", () => {
    const [, dashboard] = resourcesOfType(s.json, "AWS::CloudWatch::Dashboard")[0]!;
    const body = JSON.stringify(dashboard.DashboardBody);
    for (const metric of ["Latency", "5XXError", "ApproximateAgeOfOldestMessage", "Errors", "Duration"])
      expect(body).toContain(metric);
    // The functions' own metrics: renders, pages, render time, failures by code, webhook attempts by outcome.
    const joined = (dashboard.DashboardBody["Fn::Join"][1] as Cfn[])
      .map((part) => (typeof part === "string" ? part : "token"))
      .join("");
    const widgets = new Map(
      (JSON.parse(joined).widgets as Cfn[]).map((w) => [w.properties.title as string, w.properties.metrics as Cfn[]]),
    );
    expect(widgets.get("Renders and pages")).toEqual([
      ["Platen", "Renders", "service", "platen-dev", { label: "renders", stat: "Sum" }],
      ["Platen", "Pages", "service", "platen-dev", { label: "pages", stat: "Sum" }],
    ]);
    expect(widgets.get("Render time (ms)")!.map((m) => [m[1], m[4].stat])).toEqual([
      ["RenderTime", "p50"],
      ["RenderTime", "p95"],
      ["RenderTime", "p99"],
    ]);
    expect(widgets.get("Render failures by code")![0][0].expression).toBe(
      `SEARCH('{Platen,code,service} MetricName="RenderFailures" service="platen-dev"', 'Sum', 300)`,
    );
    expect(widgets.get("Webhook attempts by outcome")![0][0].expression).toBe(
      `SEARCH('{Platen,outcome,service} MetricName="WebhookAttempts" service="platen-dev"', 'Sum', 300)`,
    );
  });

  it("outputs the URLs and every table, bucket and queue", () => {
    const outputs = Object.keys(s.json.Outputs ?? {});
    expect(outputs).toEqual(expect.arrayContaining(["BaseUrl", "AuthUrl", "SiteUrl", "QuietHealthCheckUrl"]));
    for (const t of Object.values(tables)) expect(outputs).toContain(`Table${pascalCase(t.id)}Name`);
    for (const b of Object.values(buckets)) expect(outputs).toContain(`Bucket${pascalCase(b.id)}Name`);
    for (const q of Object.values(queues))
      expect(outputs).toEqual(
        expect.arrayContaining([`Queue${pascalCase(q.id)}Url`, `Queue${pascalCase(q.dlq.id)}Url`]),
      );
  });
});

describe("without alarmEmail", () => {
  it(
    "creates no SNS topic",
    () => {
      const s = synthStack();
      expect(resourcesOfType(s.json, "AWS::SNS::Topic")).toHaveLength(0);
      // Error-rate alarms exist exactly for the queue consumers present in functions.ts.
      const consumers = Object.values(queues)
        .map((q) => q.consumer as string)
        .filter((c) => c in sharedDefinitions.functions);
      const errorRate = [...alarmsNamed(s).keys()].filter((n) => n.endsWith("-error-rate"));
      expect(errorRate.sort()).toEqual(consumers.map((c) => `platen-dev-${c}-error-rate`).sort());
    },
    SYNTH_TIMEOUT_MS,
  );
});

describe("custom domains and the auth/site extension points", () => {
  let s: Synthesized;
  const certificateArn = "arn:aws:acm:ap-northeast-1:123456789012:certificate/abc";
  beforeAll(() => {
    const standIn = { ...sharedDefinitions.functions["health-check"]!, access: {} };
    const definitions = {
      ...sharedDefinitions,
      functions: { ...sharedDefinitions.functions, auth: { ...standIn, id: "auth" }, site: { ...standIn, id: "site" } },
    };
    s = synthStack({
      definitions,
      domains: { baseDomain: "api.example.com", authDomain: "auth.example.com", certificateArn },
    });
  }, SYNTH_TIMEOUT_MS);

  it("maps the main API at the root and the quiet API at v1/health of the base domain", () => {
    const domain = resourcesOfType(s.json, "AWS::ApiGateway::DomainName").find(
      ([, p]) => p.DomainName === "api.example.com",
    )!;
    expect(domain[1]).toMatchObject({
      RegionalCertificateArn: certificateArn,
      SecurityPolicy: "TLS_1_2",
      EndpointConfiguration: { Types: ["REGIONAL"] },
    });
    const mappings = resourcesOfType(s.json, "AWS::ApiGatewayV2::ApiMapping").filter(
      ([, p]) => p.DomainName.Ref === domain[0],
    );
    const byKey = new Map(mappings.map(([, p]) => [p.ApiMappingKey ?? "", p.ApiId.Ref]));
    expect(byKey.get("")).toBe(logicalId(s.stack, s.stack.api.restApi));
    expect(byKey.get("v1/health")).toBe(logicalId(s.stack, s.stack.api.quietApis[0]!.api));
  });

  it("uses the custom URLs in outputs and in every function's environment", () => {
    expect(s.json.Outputs!.BaseUrl!.Value).toBe("https://api.example.com/v1");
    expect(s.json.Outputs!.QuietHealthCheckUrl!.Value).toBe("https://api.example.com/v1/health/check");
    for (const [, p] of resourcesOfType(s.json, "AWS::Lambda::Function").filter(([id]) => !isAssetUploader(id))) {
      expect(p.Environment.Variables).toMatchObject({
        PLATEN_BASE_URL: "https://api.example.com/v1",
        PLATEN_AUTH_URL: "https://auth.example.com",
      });
    }
  });

  it("serves auth and app functions through their own proxy APIs once they exist", () => {
    for (const id of ["auth", "site"]) {
      const fn = logicalId(s.stack, s.stack.functions[id]!.fn);
      const proxies = resourcesOfType(s.json, "AWS::ApiGateway::Method").filter(
        ([, p]) => p.HttpMethod === "ANY" && JSON.stringify(p.Integration.Uri).includes(fn),
      );
      expect(proxies, id).toHaveLength(2);
    }
    const siteUrl =
      s.json.Resources[logicalId(s.stack, s.stack.functions.auth!.fn)]!.Properties!.Environment.Variables
        .PLATEN_SITE_URL;
    expect(JSON.stringify(siteUrl)).toContain("execute-api");
  });

  it("refuses a custom domain without a certificate", () => {
    expect(() => synthStack({ domains: { baseDomain: "api.example.com" } })).toThrow(/certificateArn/);
  });
});
