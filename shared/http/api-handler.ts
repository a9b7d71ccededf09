import type { Readable } from "node:stream";
import middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import type { ApiFunction, ApiRequest, ApiResult, PublicApiFunction } from "./api-types.ts";
import { corsHeaders } from "./cors.ts";
import { authentication } from "./middleware/authentication.ts";
import { errorResponse } from "./middleware/error-response.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { requestContext, requestsByEvent } from "./middleware/request-context.ts";

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A streamed body rides along the proxy result for the streaming wrapper (never serialized). */
export const BODY_STREAM = Symbol("platen.bodyStream");
export type StreamingProxyResult = APIGatewayProxyResult & { [BODY_STREAM]?: Readable };

/** Turns a handler's result into the API Gateway proxy shape (binary as base64). */
export function toProxyResult(result: ApiResult, lang: string): StreamingProxyResult {
  const headers = { ...corsHeaders, "Content-Language": lang, ...result.headers };
  if ("stream" in result) {
    return {
      statusCode: result.status,
      headers: { "Content-Type": result.contentType, "Content-Length": String(result.contentLength), ...headers },
      body: "",
      isBase64Encoded: true,
      [BODY_STREAM]: result.stream,
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
 *   3. authentication  – workspace of the caller (skipped for public routes)
 *   4. rateLimit       – spec 8 per-workspace class limits, after auth and before any work
 * Page quotas are checked by the generation domain, once the number of files is known.
 */
function chain(fn: (req: ApiRequest) => Promise<ApiResult>, opts: { auth: boolean }): ProxyHandler {
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>().use(errorResponse());
  handler.use(requestContext());
  if (opts.auth) handler.use(authentication()).use(rateLimit());
  return handler.handler(async (event) => {
    const request = requestsByEvent.get(event);
    if (!request) throw new Error("request context missing");
    return toProxyResult(await fn(request), request.lang);
  }) as unknown as ProxyHandler;
}

/** An authenticated API route: the handler receives the caller's principal. */
export const apiHandler = (fn: ApiFunction): ProxyHandler =>
  chain((req) => fn(req as ApiRequest & { principal: NonNullable<ApiRequest["principal"]> }), { auth: true });

/** A route without authentication (health check). */
export const publicApiHandler = (fn: PublicApiFunction): ProxyHandler => chain(fn, { auth: false });
