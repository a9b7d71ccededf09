import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { EdgeContext, EdgeResponse } from "../edge-context.ts";
import { type RouteMatch, type RouteRow, routeMatcher } from "../route-table.ts";

/**
 * Routes a function that answers its own paths (the site) by its route table: the matched
 * row and its path parameters go on `context.route` for the handler and the header
 * middlewares. The API needs none: API Gateway routes it by the route table in infra.
 */
export function router<R extends RouteRow>(
  table: readonly R[],
): MiddlewareObj<APIGatewayProxyEvent, EdgeResponse, Error, EdgeContext<unknown, RouteMatch<R>>> {
  const match = routeMatcher(table);
  return {
    before: (handler) => {
      handler.context.route = match(handler.event.httpMethod, handler.event.path || "/");
    },
  };
}
