import type { Readable } from "node:stream";
import middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import type { ApiFunction, ApiRequest, ApiResult, PublicApiFunction } from "./api-types.ts";
import { systemClock } from "#shared/clock.ts";
import { corsHeaders } from "./cors.ts";
import { keyAgeHeaders, settledPrincipal } from "./key-age-headers.ts";
import { admission } from "./middleware/admission.ts";
import { errorResponse } from "./middleware/error-response.ts";
import { requestContext, requestsByEvent } from "./middleware/request-context.ts";

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A streamed body and the after-response work ride along the proxy result for the streaming wrapper (never serialized). */
export const BODY_STREAM = Symbol("platen.bodyStream");
export const AFTER_RESPONSE = Symbol("platen.afterResponse");
export type StreamingProxyResult = APIGatewayProxyResult & { [BODY_STREAM]?: Readable | Buffer; [AFTER_RESPONSE]?: () => Promise<void> };

/**
 * Turns a handler's result into the API Gateway proxy shape: binary as base64, or for a
 * streaming route as the body itself, stream or bytes (no base64 round trip).
 */
export function toProxyResult(result: ApiResult, lang: string, streaming = false): StreamingProxyResult {
  const headers = { ...corsHeaders, "Content-Language": lang, ...result.headers };
  if ("stream" in result || ("body" in result && streaming)) {
    const [body, length] = "stream" in result ? [result.stream, result.contentLength] : [result.body, result.body.length];
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
 *   2. requestContext  – headers, query, path params, language
 *   3. admission       – the caller's workspace and spec 8's per-workspace class limit,
 *                        before any work (skipped for public routes)
 * Responses to an old application key carry the spec 5 rotation warning (key-age-headers.ts).
 * Page quotas are checked by the generation domain, once the number of files is known.
 */
export function chain(fn: (req: ApiRequest) => Promise<ApiResult>, opts: { auth: boolean; early?: boolean; streaming?: boolean }): ProxyHandler {
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>().use(errorResponse());
  handler.use(requestContext());
  if (opts.auth) handler.use(admission({ early: opts.early ?? false }));
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

/** Runs a handler's after-response work; the answer is (being) sent, so failures are logged, not thrown. */
export async function runAfterResponse(after: (() => Promise<void>) | undefined): Promise<void> {
  try {
    await after?.();
  } catch (err) {
    console.error(JSON.stringify({ level: "error", msg: "work after the response failed", error: String((err as Error)?.stack ?? err) }));
  }
}

/** An authenticated API route: the handler receives the caller's principal. */
export const apiHandler = (fn: ApiFunction): ProxyHandler =>
  chain((req) => fn(req as ApiRequest & { principal: NonNullable<ApiRequest["principal"]> }), { auth: true });

/** A route without authentication (health check). */
export const publicApiHandler = (fn: PublicApiFunction): ProxyHandler => chain(fn, { auth: false });
