import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { findRoute } from "#shared/definitions/routes.ts";
import { requiredScopesOf } from "#shared/auth/route-scopes.ts";
import { systemClock } from "#shared/clock.ts";
import { addLogKeys } from "#shared/observability/logger.ts";
import { type AdmissionMemory, admissionMemory, admit } from "../admit.ts";
import type { ApiContext } from "../api-types.ts";
import type { EdgeResponse } from "../edge-context.ts";

/**
 * README.md#authentication, shared/limits/README.md#rate-limits: the one admission of every API route, with a
 * strategy per credential the route table allows (`auth`): none; an appkey or a Bearer token (admit.ts:
 * the caller's workspace and the per-workspace class limit, settled before the handler runs — or, for a handler that asked for `early` admission, started
 * here and awaited by the handler itself before any work with effects); a Bearer token or a login session
 * (callers.ts: the caller on `request.caller`, whose route then authorizes and counts, granted-handler.ts). The route
 * table says whether a route needs a caller and which rate class it counts toward; a route
 * missing from it (never in a deployed API) needs a caller and counts toward no class.
 * `memory`: what admission remembers between this container's requests (admit.ts), made here
 * when the handler made none; the chain is assembled once, at the handler's module load.
 */
export function admission(opts: {
  early: boolean;
  memory?: AdmissionMemory;
}): MiddlewareObj<APIGatewayProxyEvent, EdgeResponse, Error, ApiContext> {
  const memory = opts.memory ?? admissionMemory();
  return {
    before: async (handler) => {
      const request = handler.context.request;
      if (!request) throw new Error("requestContext must run before admission");
      const path = handler.event.resource ?? handler.event.path;
      const route = findRoute(handler.event.httpMethod, path);
      if (route?.auth === "none") return;
      // Management and design routes: a token or a login session; their handler (granted-handler.ts)
      // authorizes the route's operation and counts its rate class for the workspace it grants.
      if (route?.auth === "bearer-or-session") {
        // Loaded on first use: the session's JWT verification (jose) and the identity keys' client
        // (Secrets Manager) are no part of a generation function's cold start.
        const { tokenOrSession } = await import("../callers.ts");
        request.caller = await tokenOrSession(request);
        addLogKeys({ workspaceId: request.caller.workspace.id });
        return;
      }
      // Generation and its reads: an appkey or a token, counted toward the route's class at once.
      const rateClass = route && route.rateClass !== "none" ? route.rateClass : undefined;
      request.admission = admit(request.header, rateClass, systemClock, memory, {
        requiredScopes: requiredScopesOf(path),
      });
      // Also swallows the rejection an early handler that fails before awaiting it would leave unhandled.
      request.admission.principal.then(
        (p) => addLogKeys({ workspaceId: p.workspace.id }),
        () => undefined,
      );
      if (!opts.early) request.principal = await request.admission.principal;
    },
  };
}
