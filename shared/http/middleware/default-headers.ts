import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { type EdgeContext, type EdgeResponse, withDefaultHeaders } from "../edge-context.ts";

/**
 * Headers every answer of a chain carries, errors included (CORS, security headers, the
 * key-age warning): added after the handler and after the error boundary, so register it
 * before the boundary (middy runs `after` and `onError` in reverse order). A header the
 * answer sets itself wins.
 */
export function defaultHeaders<C extends EdgeContext<unknown, unknown>>(
  headersFor: (context: C) => Record<string, string> | Promise<Record<string, string>>,
): MiddlewareObj<APIGatewayProxyEvent, EdgeResponse, Error, C> {
  const add = async (handler: { response: EdgeResponse | null; context: C }) => {
    if (handler.response) withDefaultHeaders(handler.response, await headersFor(handler.context));
  };
  return { after: add, onError: add };
}
