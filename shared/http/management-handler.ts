import type { ZodType } from "zod";
import { type AuditAction, type AuditEntry, recordAudit } from "#shared/audit/audit-log.ts";
import { authenticate } from "#shared/auth/authenticate.ts";
import { authorizeManagement, type ManagementGrant, type ManagementOperation } from "#shared/auth/management-access.ts";
import { type CallerDeps, checkSessionOrigin, resolveManagementCaller } from "#shared/auth/management-caller.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { isJsonContentType } from "#shared/validation/content-type.ts";
import { zodToPlatenError } from "#shared/validation/zod-error.ts";
import { findMembership } from "#shared/identity/memberships.ts";
import { readSession, SESSION_COOKIE } from "#shared/identity/session.ts";
import { cookieValue } from "#shared/web/cookies.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { apiHandler, type ProxyHandler } from "./api-handler.ts";
import type { ApiRequest, ApiResult } from "./api-types.ts";

/** What a management handler gets besides the request. */
export interface ManagementContext {
  grant: ManagementGrant;
  /** The body parsed with the route's schema, or 400 VALIDATION_FAILED with details. */
  body<T>(schema: ZodType<T>): T;
  /** Appends the change to the workspace's audit log, as the caller. */
  audit(action: AuditAction, target?: string): Promise<AuditEntry>;
}

/** The identity contract's functions, as this container uses them. */
export const callerDeps: CallerDeps = {
  authenticate: (header) => authenticate(header),
  readSession,
  hasSessionCookie: (cookieHeader) => cookieValue(cookieHeader, SESSION_COOKIE) !== undefined,
  findMembership,
  getWorkspace,
};

/**
 * A management route (OpenAPI rotateApplicationKey, shared/webhooks/README.md#managing-endpoints-over-http;
 * route auth `bearer-or-session`): the caller is resolved (token, login session, or a refused appkey),
 * authorized for the operation on the path's workspace, and only then is the body read. Not in a rate class
 * (shared/limits/README.md#rate-limits).
 */
export function managementHandler(
  operation: ManagementOperation,
  fn: (req: ApiRequest, ctx: ManagementContext) => Promise<ApiResult>,
  deps = callerDeps,
): ProxyHandler {
  return apiHandler({ caller: "none" }, async (req) => {
    const pathWorkspaceId = req.event.pathParameters?.workspaceId ?? undefined;
    const caller = await resolveManagementCaller(req.header, pathWorkspaceId, deps);
    checkSessionOrigin(caller, req.event.httpMethod, req.header("origin"), ownOrigins());
    const grant = authorizeManagement(caller, operation, pathWorkspaceId);
    return fn(req, {
      grant,
      body: (schema) => parseJsonBody(req, schema),
      audit: (action, target) =>
        recordAudit(
          { workspaceId: grant.workspaceId, actor: grant.actor, action, ...(target && { target }) },
          systemClock,
        ),
    });
  });
}

export function parseBody<T>(raw: string | null, schema: ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? "");
  } catch {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        { message: "the body must be a JSON object", messageJa: "本文は JSON オブジェクトである必要があります" },
      ],
    });
  }
  // reportInput: the messages name the received type ("expected boolean, received string"), not "is required".
  const parsed = schema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw zodToPlatenError(parsed.error);
  return parsed.data;
}

/**
 * The body of a management or design-API call: sent as JSON (`Content-Type: application/json`),
 * then parsed with the route's schema. A JSON text under another type (`text/plain`, a form
 * type, none) is refused: those are the types a cross-site form or a script can send without a
 * CORS preflight, so accepting them would leave only the origin check between a visitor's
 * login session and a change (defence in depth). An empty body is left to the schema.
 */
export function parseJsonBody<T>(
  req: { bodyText(): string | null; header(name: string): string | undefined },
  schema: ZodType<T>,
): T {
  const raw = req.bodyText();
  if (raw?.trim() && !isJsonContentType(req.header("content-type"))) {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        {
          field: "Content-Type",
          message: "the body must be sent with Content-Type: application/json",
          messageJa: "本文は Content-Type: application/json で送信してください",
        },
      ],
    });
  }
  return parseBody(raw, schema);
}

/** Origins of the service's own pages and APIs (the CSRF guard's allow-list). */
export function ownOrigins(): string[] {
  const { siteUrl, baseUrl, authUrl } = config();
  return [siteUrl, baseUrl, authUrl].flatMap((u) => {
    try {
      return [new URL(u).origin];
    } catch {
      return [];
    }
  });
}
