import type { Context } from "aws-lambda";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RenderedPdf, Renderer } from "#shared/render/renderer.ts";
import { RenderError } from "#shared/render/renderer.ts";

/** Logger and Metrics read their settings when created: the modules load after these. */
let obs: typeof import("#shared/observability/logger.ts");
let metrics: typeof import("#shared/observability/metrics.ts");
let measuredRenderer: typeof import("#shared/render/measured-renderer.ts").measuredRenderer;

beforeAll(async () => {
  Object.assign(process.env, {
    POWERTOOLS_METRICS_DISABLED: "false",
    POWERTOOLS_LOG_LEVEL: "DEBUG",
    POWERTOOLS_SERVICE_NAME: "unit",
  });
  obs = await import("#shared/observability/logger.ts");
  metrics = await import("#shared/observability/metrics.ts");
  ({ measuredRenderer } = await import("#shared/render/measured-renderer.ts"));
});

/** The JSON lines written to stdout while `work` runs. */
async function printed(work: () => Promise<unknown> | unknown): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    await work();
  } finally {
    process.stdout.write = write;
  }
  return lines
    .flatMap((l) => l.split("\n"))
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
}

/** A renderer whose renderPdf/printPdf answer as told (no Chromium: the decorator is the subject). */
function fakeRenderer(answer: () => Promise<RenderedPdf>): Renderer {
  const unused = () => Promise.reject(new Error("not used"));
  return {
    renderPdf: answer,
    printPdf: answer,
    renderThumbnail: unused,
    pageImage: unused,
    warmUp: unused,
    close: unused,
    stats: () => ({}) as never,
  };
}

const context = {
  awsRequestId: "lambda-1",
  functionName: "render",
  memoryLimitInMB: "1024",
  invokedFunctionArn: "arn",
  functionVersion: "1",
} as Context;

afterEach(() => metrics.metrics.clearMetrics());

describe("measuredRenderer", () => {
  it("counts a render, its pages and its time in one EMF line, and logs it at DEBUG with the invocation's keys", async () => {
    const renderer = measuredRenderer(fakeRenderer(async () => ({ pdf: Buffer.from("%PDF"), pageCount: 3 })));
    const lines = await printed(async () => {
      obs.startLogContext(context, obs.sharedLogKeys([{ requestId: "req-1", workspaceId: "ws-1" }]));
      await renderer.renderPdf({} as never);
      metrics.flushMetrics();
    });
    const [log, emf] = lines;
    expect(log).toMatchObject({
      level: "DEBUG",
      message: "document rendered",
      pages: 3,
      service: "unit",
      function_request_id: "lambda-1",
      requestId: "req-1",
      workspaceId: "ws-1",
    });
    expect(emf).toMatchObject({ Renders: 1, Pages: 3, service: "unit" });
    expect(emf!._aws).toMatchObject({ CloudWatchMetrics: [{ Namespace: "Platen", Dimensions: [["service"]] }] });
    expect(typeof emf!.RenderTime).toBe("number");
  });

  it("counts a failure at once by its code, keeps it for the total, and rethrows the same error", async () => {
    const timeout = new RenderError("RENDER_TIMEOUT", "too slow");
    const renderer = measuredRenderer(fakeRenderer(() => Promise.reject(timeout)));
    let thrown: unknown;
    const byCode = await printed(() => renderer.printPdf({} as never).catch((err) => (thrown = err)));
    expect(thrown).toBe(timeout);
    expect(byCode).toHaveLength(1);
    expect(byCode[0]).toMatchObject({
      RenderFailures: 1,
      code: "RENDER_TIMEOUT",
      _aws: { CloudWatchMetrics: [{ Dimensions: [["service", "code"]] }] },
    });
    const total = await printed(() => metrics.flushMetrics());
    expect(total).toHaveLength(1);
    expect(total[0]).toMatchObject({ RenderFailures: 1, _aws: { CloudWatchMetrics: [{ Dimensions: [["service"]] }] } });
    expect(total[0]).not.toHaveProperty("code");
  });

  it("names anything but a RenderError UNKNOWN", async () => {
    const renderer = measuredRenderer(fakeRenderer(() => Promise.reject(new TypeError("bug"))));
    const lines = await printed(() => renderer.renderPdf({} as never).catch(() => undefined));
    expect(lines[0]).toMatchObject({ RenderFailures: 1, code: "UNKNOWN" });
  });
});

describe("metrics and log keys", () => {
  it("publish nothing, and warn about nothing, when an invocation recorded nothing", async () => {
    expect(await printed(() => metrics.flushMetrics())).toEqual([]);
  });

  it("count webhook attempts by outcome", async () => {
    const lines = await printed(() => metrics.recordWebhookAttempt("retry"));
    expect(lines).toEqual([expect.objectContaining({ WebhookAttempts: 1, outcome: "retry", service: "unit" })]);
  });

  it("start each invocation without the previous one's keys", async () => {
    const lines = await printed(() => {
      obs.startLogContext(context, { requestId: "first", workspaceId: "ws" });
      obs.startLogContext({ ...context, awsRequestId: "lambda-2" });
      obs.logger.info("second");
    });
    expect(lines[0]).toMatchObject({ message: "second", function_request_id: "lambda-2" });
    expect(lines[0]).not.toHaveProperty("requestId");
    expect(lines[0]).not.toHaveProperty("workspaceId");
  });

  it("keep a batch's request and workspace only where every item shares them", () => {
    expect(
      obs.sharedLogKeys([
        { requestId: "r", workspaceId: "w" },
        { requestId: "r", workspaceId: "w" },
      ]),
    ).toEqual({ requestId: "r", workspaceId: "w" });
    expect(
      obs.sharedLogKeys([
        { requestId: "r1", workspaceId: "w" },
        { requestId: "r2", workspaceId: "w" },
      ]),
    ).toEqual({ requestId: undefined, workspaceId: "w" });
    expect(obs.sharedLogKeys([])).toEqual({ requestId: undefined, workspaceId: undefined });
  });
});
