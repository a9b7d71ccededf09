import type { AuditAction, AuditEntry } from "#shared/audit/audit-log.ts";
import { authorizeManagement, type ManagementGrant, type ManagementOperation } from "#shared/auth/management-access.ts";
import type { ApiRequest, ApiResult } from "./api-types.ts";
import type { ProxyHandler } from "./edge-context.ts";
import { type GrantedContext, grantedHandler } from "./granted-handler.ts";

/** What a management handler gets besides the request. */
export interface ManagementContext extends GrantedContext<ManagementGrant> {
  /** Appends the change to the workspace's audit log, as the caller. */
  audit(action: AuditAction, target?: string): Promise<AuditEntry>;
}

/**
 * A management route (OpenAPI rotateApplicationKey, shared/webhooks/README.md#managing-endpoints-over-http;
 * route auth `bearer-or-session`): admission resolved the caller (a token, a login session, or a refused
 * appkey); here it is authorized for the operation on the path's workspace (grantedHandler), and only then is
 * the body read. Not in a rate class (shared/limits/README.md#rate-limits).
 */
export function managementHandler(
  operation: ManagementOperation,
  fn: (req: ApiRequest, ctx: ManagementContext) => Promise<ApiResult>,
): ProxyHandler {
  return grantedHandler(
    (caller, req) => authorizeManagement(caller, operation, req.event.pathParameters?.workspaceId ?? undefined),
    fn,
  );
}
