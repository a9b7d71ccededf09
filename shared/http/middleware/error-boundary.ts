import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { isPlatenError, PlatenError } from "#shared/errors/platen-error.ts";
import { logger } from "#shared/observability/logger.ts";
import type { EdgeContext, EdgeResponse } from "../edge-context.ts";

/** How one edge shows an error: the API as the JSON error body, the site as an HTML page. */
export type ErrorAnswer<R> = (
  err: PlatenError,
  request: R | undefined,
  event: APIGatewayProxyEvent,
  context: Context,
) => EdgeResponse | Promise<EdgeResponse>;

/**
 * The only place errors become HTTP. Catalogue errors are answered as `answer` shows them;
 * anything else becomes INTERNAL_ERROR (no internals in the answer). Whatever is answered
 * 500 or more, and every unknown error, is logged with its cause (Powertools formats the chain).
 */
export function errorBoundary<R>(
  answer: ErrorAnswer<R>,
): MiddlewareObj<APIGatewayProxyEvent, EdgeResponse, Error, EdgeContext<R, unknown>> {
  return {
    onError: async (handler) => {
      const err = handler.error;
      const known = isPlatenError(err) ? err : new PlatenError("INTERNAL_ERROR", { cause: err });
      const response = await answer(known, handler.context.request, handler.event, handler.context);
      if (!isPlatenError(err) || response.head.statusCode >= 500) {
        logger.error("request failed", err instanceof Error ? err : String(err));
      }
      handler.response = response;
    },
  };
}
