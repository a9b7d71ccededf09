import { pipeline } from "node:stream/promises";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import { logger } from "#shared/observability/logger.ts";
import { flushMetrics } from "#shared/observability/metrics.ts";
import type { EdgeResponse, ProxyHandler } from "./edge-context.ts";

/** A middleware chain as `send` drives it: an event in, the chain's response out. */
export type EdgeChain = (event: APIGatewayProxyEvent, context: Context) => Promise<EdgeResponse>;

/** The parts of the Lambda runtime's global `awslambda` used here. */
interface LambdaStreamingRuntime {
  streamifyResponse(fn: (event: unknown, stream: NodeJS.WritableStream, context: Context) => Promise<void>): unknown;
  HttpResponseStream: { from(stream: NodeJS.WritableStream, metadata: Record<string, unknown>): NodeJS.WritableStream };
}

/**
 * The Lambda handler of a chain. A streaming route answers through Lambda response
 * streaming (API Gateway `responseTransferMode: STREAM`; the local gateway provides the
 * same `awslambda` runtime global), so a download's memory stays at one chunk; where the
 * runtime is absent (plain invoke, tests) the body is collected into a base64 proxy result.
 * Other routes answer the proxy result, their after-response work done first.
 */
export function send(chain: EdgeChain, opts: { streaming: boolean }): ProxyHandler {
  const runtime = (globalThis as { awslambda?: LambdaStreamingRuntime }).awslambda;
  if (!opts.streaming || !runtime?.streamifyResponse) return buffered(chain);
  return runtime.streamifyResponse(async (event, responseStream, context) => {
    const { head, body, after } = await chain(event as APIGatewayProxyEvent, context);
    try {
      const { statusCode, headers, multiValueHeaders } = head;
      const http = runtime.HttpResponseStream.from(responseStream, {
        statusCode,
        headers,
        ...(multiValueHeaders && { multiValueHeaders }),
      });
      const bytes = body ?? Buffer.from(head.body, head.isBase64Encoded ? "base64" : "utf8");
      // Bytes in hand go out in one write; only a real stream needs a pipeline.
      if (Buffer.isBuffer(bytes))
        await new Promise<void>((resolve, reject) => http.once("error", reject).end(bytes, resolve));
      else await pipeline(bytes, http);
    } finally {
      // Also when the client went away mid-body: what was promised (storage) still happens.
      await runAfterResponse(after);
    }
  }) as ProxyHandler;
}

/** Without streaming: the body collected into a base64 proxy result, the after-work done first. */
function buffered(chain: EdgeChain): ProxyHandler {
  return async (event, context) => {
    const { head, body, after } = await chain(event, context);
    if (after) await runAfterResponse(after);
    if (!body) return head;
    const { statusCode, headers, multiValueHeaders } = head;
    const proxy = { statusCode, headers, ...(multiValueHeaders && { multiValueHeaders }), isBase64Encoded: true };
    if (Buffer.isBuffer(body)) return { ...proxy, body: body.toString("base64") };
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
    return { ...proxy, body: Buffer.concat(chunks).toString("base64") } satisfies APIGatewayProxyResult;
  };
}

/**
 * Runs a handler's after-response work; the answer is (being) sent, so failures are logged,
 * not thrown. The invocation ends here: what it measured is published.
 */
export async function runAfterResponse(after: (() => Promise<void>) | undefined): Promise<void> {
  try {
    await after?.();
  } catch (err) {
    logger.error("work after the response failed", err as Error);
  } finally {
    flushMetrics();
  }
}
