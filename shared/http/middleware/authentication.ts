import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { authenticate } from "#shared/auth/authenticate.ts";
import { requestsByEvent } from "./request-context.ts";

/** spec 5: resolves the caller's workspace before any work is done. */
export function authentication(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (handler) => {
      const request = requestsByEvent.get(handler.event);
      if (!request) throw new Error("requestContext must run before authentication");
      request.principal = await authenticate(request.header);
    },
  };
}
