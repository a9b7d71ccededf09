import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { systemClock } from "#shared/clock.ts";
import { rateClassOf } from "#shared/limits/limits-config.ts";
import { checkRateLimit } from "#shared/limits/rate-limiter.ts";
import { requestsByEvent } from "./request-context.ts";

/**
 * spec 8: per-workspace limits by endpoint class, checked after authentication and
 * before any work (so a refused request never renders or counts a page).
 */
export function rateLimit(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (handler) => {
      const request = requestsByEvent.get(handler.event);
      const rateClass = rateClassOf(handler.event.resource ?? handler.event.path);
      if (!request?.principal || !rateClass) return;
      await checkRateLimit(request.principal.workspace.id, rateClass, systemClock);
    },
  };
}
