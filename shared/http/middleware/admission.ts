import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { requiredScopesOf } from "#shared/auth/route-scopes.ts";
import { systemClock } from "#shared/clock.ts";
import { rateClassOf } from "#shared/limits/limits-config.ts";
import { admit } from "../admission.ts";
import { requestsByEvent } from "./request-context.ts";

/**
 * spec 5 and 8: the caller's workspace and the per-workspace class limit, settled before
 * the handler runs — or, for a handler that asked for `early` admission, started here and
 * awaited by the handler itself before any work with effects (see admission.ts).
 */
export function admission(opts: { early: boolean }): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (handler) => {
      const request = requestsByEvent.get(handler.event);
      if (!request) throw new Error("requestContext must run before admission");
      const path = handler.event.resource ?? handler.event.path;
      request.admission = admit(request.header, rateClassOf(path), systemClock, { requiredScopes: requiredScopesOf(path) });
      if (!opts.early) request.principal = await request.admission.principal;
      // An early handler that fails before awaiting it must not leave a rejection unhandled.
      else request.admission.principal.catch(() => undefined);
    },
  };
}
