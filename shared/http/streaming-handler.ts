import { pipeline } from "node:stream/promises";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import {
  AFTER_RESPONSE,
  BODY_STREAM,
  chain,
  type ProxyHandler,
  runAfterResponse,
  type StreamingProxyResult,
  withPrincipal,
} from "./api-handler.ts";
import type { ApiFunction, EarlyApiFunction } from "./api-types.ts";

/** The parts of the Lambda runtime's global `awslambda` used here. */
interface LambdaStreamingRuntime {
  streamifyResponse(fn: (event: unknown, stream: NodeJS.WritableStream, context: Context) => Promise<void>): unknown;
  HttpResponseStream: { from(stream: NodeJS.WritableStream, metadata: Record<string, unknown>): NodeJS.WritableStream };
}

/**
 * An authenticated route whose body may be streamed (downloads: spec 4.6 ZIPs of up to 100
 * PDFs). With Lambda response streaming (API Gateway `responseTransferMode: STREAM`) the
 * body is piped chunk by chunk, so memory stays at one chunk; the local gateway provides
 * the same `awslambda` runtime global. Where it is absent (plain invoke, SAM) the stream is
 * collected into an ordinary base64 proxy response.
 */
export function streamingApiHandler(fn: ApiFunction): ProxyHandler {
  return streamed(chain((req) => fn(withPrincipal(req)), { streaming: true }));
}

/**
 * A streaming route that starts side-effect-free work during admission (earlyApiHandler)
 * and may leave work for after its response: sync generation answers with the PDF, then
 * stores it. Lambda keeps the invocation until that work ends.
 */
export function earlyStreamingApiHandler(fn: EarlyApiFunction): ProxyHandler {
  return streamed(chain((req) => fn(req as Parameters<EarlyApiFunction>[0]), { early: true, streaming: true }));
}

/**
 * Wraps a handler whose proxy result may carry a body stream (BODY_STREAM) so it answers
 * through Lambda response streaming where the runtime offers it, buffered otherwise.
 */
export function streamed(inner: ProxyHandler): ProxyHandler {
  const runtime = (globalThis as { awslambda?: LambdaStreamingRuntime }).awslambda;
  if (!runtime?.streamifyResponse) return buffered(inner);
  return runtime.streamifyResponse(async (event, responseStream, context) => {
    const result = (await inner(event as APIGatewayProxyEvent, context)) as StreamingProxyResult;
    try {
      const { statusCode, headers, multiValueHeaders } = result;
      const http = runtime.HttpResponseStream.from(responseStream, {
        statusCode,
        headers,
        ...(multiValueHeaders && { multiValueHeaders }),
      });
      const body = result[BODY_STREAM] ?? Buffer.from(result.body, result.isBase64Encoded ? "base64" : "utf8");
      // Bytes in hand go out in one write; only a real stream needs a pipeline.
      if (Buffer.isBuffer(body))
        await new Promise<void>((resolve, reject) => http.once("error", reject).end(body, resolve));
      else await pipeline(body, http);
    } finally {
      // Also when the client went away mid-body: what was promised (storage) still happens.
      await runAfterResponse(result[AFTER_RESPONSE]);
    }
  }) as ProxyHandler;
}

/** Without the streaming runtime: the body collected into a base64 proxy result, the after-work done first. */
function buffered(inner: ProxyHandler): ProxyHandler {
  return async (event, context) => {
    const result = (await inner(event, context)) as StreamingProxyResult;
    await runAfterResponse(result[AFTER_RESPONSE]);
    const stream = result[BODY_STREAM];
    if (!stream) return result;
    const { statusCode, headers, multiValueHeaders } = result;
    const head = { statusCode, headers, ...(multiValueHeaders && { multiValueHeaders }), isBase64Encoded: true };
    if (Buffer.isBuffer(stream)) return { ...head, body: stream.toString("base64") };
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
    return { ...head, body: Buffer.concat(chunks).toString("base64") };
  };
}
