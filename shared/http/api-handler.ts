import type { Readable } from "node:stream";
import middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import type { ApiFunction, ApiRequest, ApiResult, PublicApiFunction } from "./api-types.ts";
import { systemClock } from "#shared/clock.ts";
import { corsHeaders } from "./cors.ts";
import { keyAgeHeaders, settledPrincipal } from "./key-age-headers.ts";
import { logger } from "#shared/observability/logger.ts";
import { flushMetrics } from "#shared/observability/metrics.ts";
import { admission } from "./middleware/admission.ts";
import { errorResponse } from "./middleware/error-response.ts";
import { observability } from "./middleware/observability.ts";
import { requestContext, requestsByEvent } from "./middleware/request-context.ts";

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A streamed body and the after-response work ride along the proxy result for the streaming wrapper (never serialized). */
export const BODY_STREAM = Symbol("platen.bodyStream");
export const AFTER_RESPONSE = Symbol("platen.afterResponse");
export type StreamingProxyResult = APIGatewayProxyResult & {
  [BODY_STREAM]?: Readable | Buffer;
  [AFTER_RESPONSE]?: () => Promise<void>;
};

/**
 * Turns a handler's result into the API Gateway proxy shape: binary as base64, or for a
 * streaming route as the body itself, stream or bytes (no base64 round trip).
 */
export function toProxyResult(result: ApiResult, lang: string, streaming = false): StreamingProxyResult {
  const headers = { ...corsHeaders, "Content-Language": lang, ...result.headers };
  if ("stream" in result || ("body" in result && streaming)) {
    const [body, length] =
      "stream" in result ? [result.stream, result.contentLength] : [result.body, result.body.length];
    return {
      statusCode: result.status,
      headers: { "Content-Type": result.contentType, "Content-Length": String(length), ...headers },
      body: "",
      isBase64Encoded: true,
      [BODY_STREAM]: body,
    };
  }
  if ("json" in result) {
    return {
      statusCode: result.status,
      headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
      body: JSON.stringify(result.json),
    };
  }
  return {
    statusCode: result.status,
    headers: { "Content-Type": result.contentType, "Content-Length": String(result.body.length), ...headers },
    body: result.body.toString("base64"),
    isBase64Encoded: true,
  };
}

/**
 * Assembles the middleware chain in a fixed order. `before` runs top to bottom,
 * `onError` bottom to top:
 *   1. errorResponse   – registered first so it sees every error (its onError runs last)
 *   2. observability   – the invocation's log keys; publishes its metrics at the end
 *   3. requestContext  – headers, query, path params, language
 *   4. admission       – the caller's workspace and spec 8's per-workspace class limit,
 *                        before any work (skipped for routes the route table marks public)
 * Responses to an old application key carry the spec 5 rotation warning (key-age-headers.ts).
 * Page quotas are checked by the generation domain, once the number of files is known.
 */
export function chain(
  fn: (req: ApiRequest) => Promise<ApiResult>,
  opts: { early?: boolean; streaming?: boolean },
): ProxyHandler {
  // Sync generation (the early handlers) must time out as spec 7.2 says, with the gateway's 504;
  // middy's early time-out would answer 500 INTERNAL_ERROR a few milliseconds before it.
  const timeoutEarlyInMillis = opts.early ? 0 : 5;
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis }).use(
    errorResponse(),
  );
  handler.use(observability());
  handler.use(requestContext());
  handler.use(admission({ early: opts.early ?? false }));
  return handler.handler(async (event) => {
    const request = requestsByEvent.get(event);
    if (!request) throw new Error("request context missing");
    const answer = await fn(request);
    const ageHeaders = keyAgeHeaders(await settledPrincipal(request), systemClock.now());
    const result = { ...answer, headers: { ...ageHeaders, ...answer.headers } } as ApiResult;
    const proxy = toProxyResult(result, request.lang, opts.streaming);
    if (!result.after) return proxy;
    if (opts.streaming) return Object.assign(proxy, { [AFTER_RESPONSE]: result.after });
    await runAfterResponse(result.after);
    return proxy;
  }) as unknown as ProxyHandler;
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

/** An authenticated API route: the handler receives the caller's principal. */
export const apiHandler = (fn: ApiFunction): ProxyHandler => chain((req) => fn(withPrincipal(req)), {});

/** A route the route table marks `auth: "none"` (health check): the handler gets no caller. */
export const publicApiHandler = (fn: PublicApiFunction): ProxyHandler => chain(fn, {});

/** The request of a handler that needs a caller; a route table saying otherwise is a deployment bug. */
export function withPrincipal(req: ApiRequest): ApiRequest & { principal: NonNullable<ApiRequest["principal"]> } {
  if (!req.principal)
    throw new Error(
      `${req.event.httpMethod} ${req.event.resource} is public in the route table, but its handler needs a caller`,
    );
  return req as ApiRequest & { principal: NonNullable<ApiRequest["principal"]> };
}
