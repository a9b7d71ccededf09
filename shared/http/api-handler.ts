import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { systemClock } from "#shared/clock.ts";
import type { ApiContext, ApiFunction, ApiRequest, ApiResult, PublicApiFunction } from "./api-types.ts";
import { corsHeaders } from "./cors.ts";
import { type EdgeResponse, type ProxyHandler, requestOf } from "./edge-context.ts";
import { keyAgeHeaders, settledPrincipal } from "./key-age-headers.ts";
import { admission } from "./middleware/admission.ts";
import { defaultHeaders } from "./middleware/default-headers.ts";
import { errorBoundary } from "./middleware/error-boundary.ts";
import { apiErrorAnswer } from "./middleware/error-response.ts";
import { observability } from "./middleware/observability.ts";
import { requestContext } from "./middleware/request-context.ts";
import { send } from "./send.ts";
import { toProxy } from "./to-proxy.ts";

export type { ProxyHandler } from "./edge-context.ts";

/** The API's view of a proxy event: the shared request plus the route's path parameters. */
export const apiRequest = (request: Omit<ApiRequest, "path">): ApiRequest => ({
  ...request,
  path: (name) => request.event.pathParameters?.[name] ?? "",
});

/**
 * Assembles the API's middleware chain in a fixed order. `before` runs top to bottom,
 * `after` and `onError` bottom to top:
 *   1. CORS headers    – on every answer, errors included (so registered before the boundary)
 *   2. key age         – responses to an old application key carry the spec 5 rotation warning
 *   3. errorBoundary   – every error becomes the spec 7.1 body (apiErrorAnswer)
 *   4. observability   – the invocation's log keys; publishes its metrics at the end
 *   5. requestContext  – headers, query, cookies, path params, language, on `context.request`
 *   6. admission       – the caller's workspace and spec 8's per-workspace class limit,
 *                        before any work (skipped for routes the route table marks public)
 * Page quotas are checked by the generation domain, once the number of files is known.
 */
export function chain(
  fn: (req: ApiRequest) => Promise<ApiResult>,
  opts: { early?: boolean; streaming?: boolean },
): ProxyHandler {
  const streaming = opts.streaming ?? false;
  // Sync generation (the early handlers) must time out as spec 7.2 says, with the gateway's 504;
  // middy's early time-out would answer 500 INTERNAL_ERROR a few milliseconds before it.
  const timeoutEarlyInMillis = opts.early ? 0 : 5;
  const handler = middy<APIGatewayProxyEvent, EdgeResponse, Error, ApiContext>({ timeoutEarlyInMillis })
    .use(defaultHeaders(() => corsHeaders))
    .use(
      defaultHeaders<ApiContext>(async (context) =>
        keyAgeHeaders(await settledPrincipal(context.request), systemClock.now()),
      ),
    )
    .use(errorBoundary(apiErrorAnswer))
    .use(observability())
    .use(requestContext(apiRequest))
    .use(admission({ early: opts.early ?? false }))
    .handler(async (_event: APIGatewayProxyEvent, context: ApiContext) => {
      const request = requestOf(context);
      return toProxy(await fn(request), { lang: request.lang, streaming });
    });
  return send(handler, { streaming });
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
