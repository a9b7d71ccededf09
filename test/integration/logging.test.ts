import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { invoiceItem } from "../helpers/async-fixtures.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";
import { registerEndpoint, waitForDelivery, webhookStackEnv } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Logs and metrics of a whole run (sync and async generation with passcodes, a webhook
 * that fails once), read from the stack's own output at the most verbose level: every
 * log line is Powertools JSON with the Lambda, generation and workspace ids, nothing
 * secret or customer-supplied appears, and the metrics come out as EMF.
 */

let stack: RunningStack;
let receiver: WebhookReceiver;
let tenant: Tenant;
const marker = `param-marker-${randomUUID()}`;
const receiverToken = `receiver-token-${randomUUID()}`;
const secrets: string[] = [];
let syncRequestId: string;
let asyncRequestId: string;

interface Line {
  level?: string;
  message?: string;
  service?: string;
  function_name?: string;
  function_request_id?: string;
  requestId?: string;
  workspaceId?: string;
  apiRequestId?: string;
  _aws?: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

/** Every JSON line the stack printed. */
const jsonLines = (): Line[] =>
  stack
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);

beforeAll(async () => {
  stack = await startStack({
    env: { ...webhookStackEnv, POWERTOOLS_LOG_LEVEL: "DEBUG", POWERTOOLS_METRICS_DISABLED: "false" },
  });
  receiver = await startWebhookReceiver();
  tenant = await createTenant(stack, "logging");
  const path = `/hook?token=${receiverToken}`;
  receiver.answer(path, (n) => ({ status: n === 1 ? 500 : 200 }));
  const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url(path) });
  secrets.push(tenant.appKey, endpoint.secret, receiverToken, marker);
  const params = { ...(invoiceItem("x").params as Record<string, unknown>), 請求先: marker };
  const sync = await syncCaller(stack, tenant.appKey)(
    "single",
    { designId: tenant.invoiceId, version: 1, content: { fileName: "logged", params, passcodeEnabled: true } },
    { query: "?response=json" },
  );
  expect(sync.status).toBe(200);
  const body = (await sync.json()) as { requestId: string; files: { share: { passcode?: string } }[] };
  syncRequestId = body.requestId;
  secrets.push(body.files[0]!.share.passcode!);
  const accepted = await acceptOrFail(stack, tenant.appKey, "multiple", {
    designId: tenant.invoiceId,
    version: 1,
    contents: [0, 1].map((i) => ({ ...invoiceItem(`async-${i}`), params, passcodeEnabled: true })),
  });
  asyncRequestId = accepted.requestId;
  for (const f of accepted.files) secrets.push(f.share.passcode!);
  expect((await pollStatus(stack, tenant.appKey, asyncRequestId)).body.status).toBe("completed");
  // Two events (sync, async): one delivered after a failed attempt, the other at once.
  await waitForDelivery(
    endpoint.id,
    (d) => d.status === "delivered" && d.requestId === asyncRequestId && receiver.at(path).length >= 3,
    30_000,
  );
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

describe("logs (Powertools Logger)", () => {
  it("never contain an appkey, a webhook secret, a passcode, params or a receiver's URL query", () => {
    expect(secrets.filter(Boolean)).toHaveLength(4 + 1 + 2);
    const output = stack.output();
    for (const secret of secrets)
      expect(output.includes(secret), `found ${secret.slice(0, 12)}… in the output`).toBe(false);
  });

  it("carry the Lambda request id, the generation request id and the workspace id on every line", () => {
    const logs = jsonLines().filter((l) => !l._aws);
    const rendered = logs.filter((l) => l.message === "document rendered");
    const attempts = logs.filter((l) => l.message === "webhook attempt");
    expect(rendered.length).toBeGreaterThanOrEqual(3);
    expect(attempts).toHaveLength(3);
    for (const line of logs) {
      expect(line, JSON.stringify(line)).toMatchObject({
        service: "platen",
        function_request_id: expect.any(String),
        workspaceId: tenant.workspaceId,
      });
      expect([syncRequestId, asyncRequestId]).toContain(line.requestId);
    }
    // Per invocation, even though the local stack runs them side by side in one process.
    expect(
      rendered.filter((l) => l.function_name === "generate-sync").map((l) => [l.requestId, typeof l.apiRequestId]),
    ).toEqual([[syncRequestId, "string"]]);
    expect(
      rendered
        .filter((l) => l.function_name === "render-files")
        .every((l) => l.requestId === asyncRequestId && !l.apiRequestId),
    ).toBe(true);
    expect(attempts.map((a) => a.level).sort()).toEqual(["INFO", "INFO", "WARN"]);
    expect(attempts[0]).toMatchObject({
      url: receiver.url("/hook"),
      endpointId: expect.any(String),
      deliveryId: expect.any(String),
    });
  });
});

describe("metrics (Powertools Metrics, EMF)", () => {
  const metricLines = () => jsonLines().filter((l) => l._aws?.CloudWatchMetrics[0]?.Namespace === "Platen");
  const valuesOf = (name: string, dimension?: string) =>
    metricLines()
      .filter((l) => l._aws!.CloudWatchMetrics[0]!.Metrics.some((m) => m.Name === name))
      .filter((l) => (dimension ? l._aws!.CloudWatchMetrics[0]!.Dimensions[0]!.includes(dimension) : true))
      .flatMap((l) => (Array.isArray(l[name]) ? (l[name] as number[]) : [l[name] as number]));

  it("count renders and pages, time each render, and count webhook attempts by outcome", () => {
    expect(valuesOf("Renders").reduce((a, b) => a + b, 0)).toBe(3);
    expect(valuesOf("Pages").every((p) => p >= 1)).toBe(true);
    expect(valuesOf("RenderTime")).toHaveLength(3);
    expect(valuesOf("RenderTime").every((ms) => ms > 0 && ms < 60_000)).toBe(true);
    const attempts = metricLines().filter((l) => l.outcome !== undefined && "WebhookAttempts" in l);
    expect(attempts.map((l) => l.outcome).sort()).toEqual(["delivered", "delivered", "retry"]);
    for (const line of metricLines()) expect(line._aws!.CloudWatchMetrics[0]!.Dimensions[0]![0]).toBe("service");
  });
});
