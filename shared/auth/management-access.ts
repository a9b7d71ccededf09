import type { AuditActor } from "#shared/audit/audit-log.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { accessText } from "./access-text.ts";
import type { Principal } from "./authenticate.ts";

/**
 * The caller of a management route: the identity contract's `Principal`. A login session
 * is resolved against the path's workspace (its `role` is the membership there).
 */
export type ManagementCaller = Principal;

/** The management operations (OpenAPI rotateApplicationKey, the webhook-endpoint and signing-identity operations). */
export type ManagementOperation =
  | "list-endpoints"
  | "create-endpoint"
  | "update-endpoint"
  | "delete-endpoint"
  | "regenerate-secret"
  | "read-secret"
  | "set-workspace-webhook"
  | "rotate-app-key"
  | "list-identities"
  | "create-identity"
  | "delete-identity"
  | "read-record-retention"
  | "set-record-retention";

/**
 * The role each management route needs (READ or ADMIN; shared/webhooks/README.md#managing-endpoints-over-http).
 */
export const requiredRole: Record<ManagementOperation, "read" | "admin"> = {
  "list-endpoints": "read",
  "create-endpoint": "admin",
  "update-endpoint": "admin",
  "delete-endpoint": "admin",
  "regenerate-secret": "admin",
  "read-secret": "admin",
  "set-workspace-webhook": "admin",
  "rotate-app-key": "admin",
  "list-identities": "read",
  "create-identity": "admin",
  "delete-identity": "admin",
  // Kept records' retention (shared/records/README.md#retention): anyone may read it, an ADMIN lengthens it.
  "read-record-retention": "read",
  "set-record-retention": "admin",
};

/**
 * shared/identity/README.md#scopes: the scope OAuth tokens need for webhook management (and, here, key
 * rotation).
 */
export const MANAGEMENT_SCOPE = "pdf:generate";

/** What an authorized caller may do, and as whom it is recorded. */
export interface ManagementGrant {
  workspaceId: string;
  /**
   * The OAuth client the ownership rule applies to (see
   * shared/webhooks/README.md#managing-endpoints-over-http): endpoints of other clients are not found, unowned
   * ones become this client's on first PATCH. Absent for first-party sessions, which are not restricted by
   * ownership.
   */
  ownerClientId?: string;
  actor: AuditActor;
}

const denied = (text: Bilingual) => new PlatenError("WORKSPACE_ROLE_DENIED", { details: [{ text }] });

/**
 * The management rules (shared/webhooks/README.md#managing-endpoints-over-http), in this order (401s before
 * 403s, as authentication precedes authorization):
 * - an application key is not a management credential → 401 INVALID_CREDENTIALS;
 * - an OAuth token without `pdf:generate` → 401 INVALID_CREDENTIALS (see shared/identity/README.md#scopes);
 * - a client-credentials token (no end user, so no membership) → 403 WORKSPACE_ROLE_DENIED;
 * - a path workspaceId other than the token's workspace → 403 WORKSPACE_MISMATCH (as the
 *   spec's other path-workspaceId route); a session must name the workspace in the path;
 * - no role, or READ where ADMIN is needed → 403 WORKSPACE_ROLE_DENIED;
 * - the signing secret is readable only in a first-party login session → 403 ACCESS_DENIED.
 */
export function authorizeManagement(
  caller: ManagementCaller,
  operation: ManagementOperation,
  pathWorkspaceId: string | undefined,
): ManagementGrant {
  if (caller.method === "appkey") {
    throw new PlatenError("INVALID_CREDENTIALS", {
      details: [
        {
          text: accessText.managementNoAppKey,
        },
      ],
    });
  }
  if (caller.method === "bearer") checkToken(caller);
  if (caller.method === "session" && pathWorkspaceId === undefined) {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        {
          field: "workspaceId",
          text: accessText.sessionNamesPathWorkspace,
        },
      ],
    });
  }
  if (pathWorkspaceId !== undefined && pathWorkspaceId !== caller.workspace.id)
    throw new PlatenError("WORKSPACE_MISMATCH");
  checkRole(caller.role, requiredRole[operation]);
  if (operation === "read-secret" && caller.method !== "session") {
    throw new PlatenError("ACCESS_DENIED", {
      details: [
        {
          text: accessText.secretFirstPartyOnly,
        },
      ],
    });
  }
  const workspaceId = caller.workspace.id;
  if (caller.method === "session") return { workspaceId, actor: { via: "session", userId: caller.userId } };
  return {
    workspaceId,
    ownerClientId: caller.clientId,
    actor: { via: "bearer", userId: caller.userId, clientId: caller.clientId },
  };
}

function checkToken(caller: ManagementCaller): void {
  if (!caller.scopes?.includes(MANAGEMENT_SCOPE)) {
    throw new PlatenError("INVALID_CREDENTIALS", {
      details: [
        {
          text: fillBoth(accessText.lacksScope, { scopes: MANAGEMENT_SCOPE }),
        },
      ],
    });
  }
  if (caller.grant === "client_credentials" || caller.userId === undefined) {
    throw denied(accessText.clientHasNoRole);
  }
}

function checkRole(role: ManagementCaller["role"], needed: "read" | "admin"): void {
  if (role === undefined) throw denied(accessText.notMember);
  if (needed === "admin" && role !== "admin") throw denied(accessText.needsAdmin);
}
