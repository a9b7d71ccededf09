import { type AuditAction, type AuditEntry, recordAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";

/** One change made through the site, for the workspace's audit trail. */
export interface SiteAuditEntry {
  workspaceId: string;
  /** The session's user id. */
  actor: string;
  action: AuditAction;
  target: string;
  detail?: Record<string, string>;
}

/**
 * Records a change made through the site in the workspace's audit log, the same log the
 * management API writes (actor `via: "session"`). Like the API, a failed write fails the
 * request: a change must never go unrecorded silently.
 */
export async function auditSite(entry: SiteAuditEntry): Promise<AuditEntry> {
  const { actor, ...rest } = entry;
  return recordAudit({ ...rest, actor: { via: "session", userId: actor } }, systemClock);
}
