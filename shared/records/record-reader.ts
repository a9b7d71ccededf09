import type { AuditActor } from "#shared/audit/audit-log.ts";
import type { Principal } from "#shared/auth/authenticate.ts";

/** Who read records, as the audit log names them: the key, a token's user and client, or a login session's user. */
export function readerOf(principal: Principal): AuditActor {
  const via = principal.method === "appkey" ? "appkey" : principal.method;
  return {
    via,
    ...(principal.userId && { userId: principal.userId }),
    ...(principal.clientId && { clientId: principal.clientId }),
  };
}
