import type { Readable } from "node:stream";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";

/**
 * The Lambda context as the edge's middlewares and its final handler see it. Middy hands a
 * middleware's per-request state to the handler on the context (as its own middlewares do
 * with `setToContext`): `requestContext` puts the parsed request here, a router its route.
 */
export interface EdgeContext<R, Route = never> extends Context {
  request?: R;
  route?: Route;
}

/** The request the chain parsed; missing only when a chain was assembled without requestContext. */
export function requestOf<R>(context: EdgeContext<R, unknown>): R {
  if (!context.request) throw new Error("request context missing: the chain must use requestContext");
  return context.request;
}

/**
 * What the chain answers: the proxy result's head (with its body when it is already text)
 * and, for a streamed route, the body as bytes or a stream plus the work that follows the
 * answer. `send.ts` turns it into what API Gateway receives, streamed or buffered.
 */
export interface EdgeResponse {
  head: APIGatewayProxyResult;
  /** A body sent as it is (Lambda response streaming) instead of the head's text body. */
  body?: Readable | Buffer;
  /**
   * Work that must finish but need not delay the answer, run once the response is sent;
   * it cannot change the response, so it reports its own failures (runAfterResponse).
   */
  after?: () => Promise<void>;
}

/** The Lambda handler every HTTP function exports (API Gateway proxy integration). */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Adds headers the response does not set itself (the response's own win). */
export function withDefaultHeaders(response: EdgeResponse, defaults: Record<string, string>): void {
  response.head.headers = { ...defaults, ...response.head.headers };
}
