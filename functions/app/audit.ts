import { logger } from "#shared/observability/logger.ts";

/** One change made through the site, for the workspace's audit trail. */
export interface SiteAuditEntry {
  workspaceId: string;
  actor: string;
  action: string;
  target: string;
  detail?: Record<string, string>;
}

/**
 * Records a change made through the site. Until the workspace audit log (issue 13) is
 * available this is a structured log line (kept with the function's logs), the same fields.
 */
export async function auditSite(entry: SiteAuditEntry): Promise<void> {
  logger.info("audit", { at: new Date().toISOString(), ...entry });
}
