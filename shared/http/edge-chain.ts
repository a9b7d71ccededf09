import middy, { type MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { EdgeContext, EdgeResponse } from "./edge-context.ts";
import { defaultHeaders } from "./middleware/default-headers.ts";
import { type ErrorAnswer, errorBoundary } from "./middleware/error-boundary.ts";
import { observability } from "./middleware/observability.ts";
import { type EdgeRequest, requestContext } from "./middleware/request-context.ts";
import type { EdgeChain } from "./send.ts";

/** What one HTTP function puts into the chain; the chain's order is fixed here. */
export interface EdgeChainParts<R extends EdgeRequest, Route> {
  /** Headers every answer carries, errors included (CORS, key age, security headers); the answer's own win. */
  headers?: (context: EdgeContext<R, Route>) => Record<string, string> | Promise<Record<string, string>>;
  /** How this edge shows an error (the API's JSON body, the site's pages). */
  errors: ErrorAnswer<R>;
  /** This edge's view of the request; absent where the handler reads the event itself (the auth server). */
  request?: (request: EdgeRequest) => R;
  /** Steps after the request context: admission (API), router (site). */
  steps?: MiddlewareObj<APIGatewayProxyEvent, EdgeResponse, Error, EdgeContext<R, Route>>[];
  /** Middy's early time-out (0: none, the gateway's own time-out answers). */
  timeoutEarlyInMillis: number;
}

/**
 * The one place the middleware chain of every HTTP function (API routes, the site, the auth
 * server) is assembled. `before` runs top to bottom, `after` and `onError` bottom to top:
 *   1. headers         – on every answer, errors included (so registered before the boundary)
 *   2. errorBoundary   – the only place errors become answers; unknown ones and 5xx are logged
 *   3. observability   – the invocation's log keys; publishes its metrics at the end
 *   4. requestContext  – headers, query, cookies, body, language, on `context.request`
 *   5. the edge's own steps – admission (API), router (site)
 * then the handler. `send.ts` puts its answer on the wire.
 */
export function edgeChain<R extends EdgeRequest, Route = never>(
  parts: EdgeChainParts<R, Route>,
  handler: (event: APIGatewayProxyEvent, context: EdgeContext<R, Route>) => Promise<EdgeResponse>,
): EdgeChain {
  const chain = middy<APIGatewayProxyEvent, EdgeResponse, Error, EdgeContext<R, Route>>({
    timeoutEarlyInMillis: parts.timeoutEarlyInMillis,
  });
  if (parts.headers) chain.use(defaultHeaders(parts.headers));
  chain.use(errorBoundary<R>(parts.errors)).use(observability());
  if (parts.request) chain.use(requestContext(parts.request));
  for (const step of parts.steps ?? []) chain.use(step);
  return chain.handler(handler);
}
