import type { ZodType } from "zod";
import { type AuditAction, type AuditActor, type AuditEntry, recordAudit } from "#shared/audit/audit-log.ts";
import type { Principal } from "#shared/auth/authenticate.ts";
import { systemClock } from "#shared/clock.ts";
import { findRoute } from "#shared/definitions/routes.ts";
import { countRate } from "./admit.ts";
import { apiHandler, type ProxyHandler } from "./api-handler.ts";
import type { ApiRequest, ApiResult } from "./api-types.ts";
import { parseJsonBody } from "./request-body.ts";

/** What an authorized caller may do, and as whom its changes are recorded. */
export interface Grant {
  workspaceId: string;
  actor: AuditActor;
}

/** What a route of a token or a login session gets besides the request. */
export interface GrantedContext<G extends Grant> {
  grant: G;
  /** The JSON body parsed with a schema, or 400 VALIDATION_FAILED with details. */
  body<T>(schema: ZodType<T>): T;
  /** Appends the change to the workspace's audit log, as the caller. */
  audit(action: AuditAction, target?: string, detail?: Record<string, string>): Promise<AuditEntry>;
}

/**
 * The one handler factory of the routes whose auth is `bearer-or-session` (the management API and
 * the design API). Admission resolved the caller (callers.ts: a token or a login session, the
 * session's origin checked); here `authorize` turns it into a grant for the route's operation (401s
 * and 403s), the request counts toward the route's rate class in the granted workspace (countRate:
 * 429 before any of the body's work), and only then does `run` read the body.
 */
export function grantedHandler<G extends Grant>(
  authorize: (caller: Principal, req: ApiRequest) => G,
  run: (req: ApiRequest, ctx: GrantedContext<G>) => Promise<ApiResult>,
): ProxyHandler {
  return apiHandler({ caller: "none" }, async (req) => {
    if (!req.caller)
      throw new Error(
        `${req.event.httpMethod} ${req.event.resource} resolved no caller: its route table auth must be bearer-or-session`,
      );
    const grant = authorize(req.caller, req);
    const rateClass = findRoute(req.event.httpMethod, req.event.resource ?? "")?.rateClass;
    if (rateClass && rateClass !== "none") await countRate(grant.workspaceId, rateClass, systemClock);
    return run(req, {
      grant,
      body: (schema) => parseJsonBody(req, schema),
      audit: (action, target, detail) =>
        recordAudit(
          {
            workspaceId: grant.workspaceId,
            actor: grant.actor,
            action,
            ...(target && { target }),
            ...(detail && { detail }),
          },
          systemClock,
        ),
    });
  });
}
