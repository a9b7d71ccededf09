import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { startLogContext } from "#shared/observability/logger.ts";
import { flushMetrics } from "#shared/observability/metrics.ts";

/**
 * Every log line of the invocation gets the Lambda request id, API Gateway's request id and,
 * on routes that name one, the generation request id (admission adds the workspace id).
 * Metrics recorded by the handler are published when it ends (streaming routes publish
 * again after their after-response work, see runAfterResponse).
 */
export function observability(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: (handler) => {
      const event = handler.event;
      startLogContext(handler.context, {
        apiRequestId: event.requestContext?.requestId,
        requestId: event.pathParameters?.requestId,
      });
    },
    after: () => flushMetrics(),
    onError: () => flushMetrics(),
  };
}
