import { type AuditAction, recordAudit } from "#shared/audit/audit-log.ts";
import { authorizeDesigns, type DesignGrant, type DesignOperation } from "#shared/auth/design-access.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import type { RateClass } from "#shared/definitions/rate-classes.ts";
import { getDesignHead, type DesignHead } from "#shared/designs/design-store.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { countRate } from "#shared/http/admit.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import type { Role, SiteIdentity } from "../identity.ts";
import { csrfAccepted } from "../page-parts.ts";
import type { SiteRequest, SiteResult } from "../site-types.ts";

/**
 * The studio's pages and JSON calls act with the visitor's login session as the design API
 * does for a session (shared/authoring/README.md#who-may-call-it): the same `authorizeDesigns`
 * with a session principal, so a member reads and an ADMIN changes, here as there.
 */
export async function sessionGrant(
  identity: SiteIdentity,
  userId: string,
  workspaceId: string,
  operation: DesignOperation,
): Promise<{ grant: DesignGrant; role: Role } | undefined> {
  const role = await identity.roleIn(workspaceId, userId);
  const workspace = role && (await getWorkspace(workspaceId));
  if (!role || !workspace) return undefined;
  return { grant: authorizeDesigns({ workspace, method: "session", userId, role }, operation), role };
}

/**
 * Counts a studio call toward its rate class in the workspace's window, as the design API's route
 * counts (shared/limits/README.md#rate-limits, the same `countRate`), before the call does any work:
 * 429 `RATE_LIMITED` with its `retryAfter` over the limit.
 */
export const admitRate = (grant: DesignGrant, rateClass: RateClass): Promise<void> =>
  countRate(grant.workspaceId, rateClass, systemClock);

/**
 * The active design behind `/designs/{designId}`: the site's addresses carry no workspace, so
 * the visitor's own workspaces are looked in. Another workspace's design, an unknown id and
 * an archived design are all not found, as on the API.
 */
export async function findDesign(
  identity: SiteIdentity,
  userId: string,
  designId: string,
): Promise<{ head: DesignHead; role: Role } | undefined> {
  if (!/^[\w-]{1,64}$/.test(designId)) return undefined;
  for (const { workspaceId, role } of await identity.workspacesOf(userId)) {
    const head = await getDesignHead(workspaceId, designId);
    if (head && !head.archived) return { head, role };
  }
  return undefined;
}

/** Records a studio change in the workspace's audit log as the API does (actor `via: "session"`). */
export async function auditDesign(
  grant: DesignGrant,
  action: AuditAction,
  target: string,
  detail?: Record<string, string>,
): Promise<void> {
  await recordAudit(
    { workspaceId: grant.workspaceId, actor: grant.actor, action, target, ...(detail && { detail }) },
    systemClock,
  );
}

/** The header the editor's script sends its CSRF token in (forms send the `csrf` field). */
export const CSRF_HEADER = "x-csrf-token";

/** Whether a script call carries a valid CSRF token of this user in {@link CSRF_HEADER}. */
export const scriptCsrfAccepted = (req: SiteRequest, userId: string) =>
  csrfAccepted(userId, new URLSearchParams({ csrf: req.header(CSRF_HEADER) ?? "" }));

/** A JSON answer of a studio call; never cached. */
export const jsonAnswer = (status: number, body: unknown): SiteResult => ({
  status,
  text: JSON.stringify(body),
  contentType: "application/json; charset=utf-8",
});

/**
 * A refusal of a studio call as the API's error body (README.md#errors), so the script reads
 * `code` and `details` (file, line, column) exactly as an API client would. 5xx never show internals.
 */
export function jsonError(req: SiteRequest, err: unknown): SiteResult {
  // Anything else is a fault: the error boundary logs it and answers the generic 500 page.
  if (!isPlatenError(err)) throw err;
  const answer = jsonAnswer(err.status, buildErrorBody(err, req.lang, config().siteUrl));
  // A 429 (or a busy renderer's 503) says when to try again, as the API's answer does.
  return err.retryAfter === undefined ? answer : { ...answer, headers: { "Retry-After": String(err.retryAfter) } };
}
