import { describe, expect, it } from "vitest";
import { installLambdaStreamingRuntime, STREAMING } from "#infra/local/lambda-streaming.ts";

describe("the local awslambda streaming runtime", () => {
  it("completes an awslambda object someone else created first (the AWS SDK's invoke store does)", async () => {
    await import("@aws-sdk/client-s3"); // loads @aws/lambda-invoke-store, which sets globalThis.awslambda = {}
    const g = globalThis as { awslambda?: Record<string, unknown> };
    expect(g.awslambda).toBeDefined();
    installLambdaStreamingRuntime();
    const runtime = g.awslambda as { streamifyResponse: (fn: object) => object; HttpResponseStream: { from: unknown } };
    expect(typeof runtime.streamifyResponse).toBe("function");
    expect(typeof runtime.HttpResponseStream.from).toBe("function");
    expect(STREAMING in runtime.streamifyResponse(async () => undefined)).toBe(true);
  });
});
