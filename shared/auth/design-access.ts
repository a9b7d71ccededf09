import type { AuditActor } from "#shared/audit/audit-log.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { accessText } from "./access-text.ts";
import type { Principal } from "./authenticate.ts";

/**
 * What a design API route does, for its scope and role (shared/authoring/README.md#who-may-call-it):
 * reading or changing the workspace's designs, reading a gallery template, sharing one
 * (`templates:share`) or withdrawing one (`templates:write`).
 */
export type DesignOperation =
  | "designs:read"
  | "designs:write"
  | "templates:read"
  | "templates:write"
  | "templates:share";

const READ_DESIGNS = ["designs:read", "designs:write"] as const;

/**
 * Scopes each operation needs: every group, one scope of each group (a write scope also reads).
 * Sharing publishes a design's bundle to anyone, so it needs to read the design as well as
 * `templates:write`: otherwise a token that cannot read designs could read any of them through
 * the gallery.
 */
const SCOPES: Record<DesignOperation, readonly (readonly string[])[]> = {
  "designs:read": [READ_DESIGNS],
  "designs:write": [["designs:write"]],
  "templates:read": [["templates:read", "templates:write"]],
  "templates:write": [["templates:write"]],
  "templates:share": [["templates:write"], READ_DESIGNS],
};

/**
 * The ways a Bearer token may hold an operation's scopes, for the OpenAPI security requirements:
 * one entry per combination, the scopes of an entry separated by spaces (all of them needed).
 */
export function operationScopes(operation: DesignOperation): string[] {
  return SCOPES[operation].reduce<string[]>(
    (ways, group) => ways.flatMap((way) => group.map((scope) => (way ? `${way} ${scope}` : scope))),
    [""],
  );
}

/** The role a user needs: reads take any member (READ), changes ADMIN. */
const ROLE: Record<DesignOperation, "read" | "admin"> = {
  "designs:read": "read",
  "designs:write": "admin",
  "templates:read": "read",
  "templates:write": "admin",
  "templates:share": "admin",
};

export interface DesignGrant {
  workspaceId: string;
  actor: AuditActor;
  /** Whether the caller may list archived designs: an ADMIN, or a client token with designs:write. */
  admin: boolean;
}

const denied = (text: Bilingual) => new PlatenError("WORKSPACE_ROLE_DENIED", { details: [{ text }] });

/**
 * The design API's rules, 401s before 403s:
 * - an application key is the generation credential, never a design one → 401 INVALID_CREDENTIALS
 *   (a leaked key must not rewrite invoices);
 * - a Bearer token without the operation's scopes (one of each group) → 401 INVALID_CREDENTIALS;
 * - a user (a code-flow token or the login session) needs READ to read and ADMIN to change → 403
 *   WORKSPACE_ROLE_DENIED;
 * - a client-credentials token acts by its scopes alone: publishing from a CI pipeline is the
 *   main use of this API (unlike webhook management, where such a token has no role).
 */
export function authorizeDesigns(caller: Principal, operation: DesignOperation): DesignGrant {
  if (caller.method === "appkey") {
    throw new PlatenError("INVALID_CREDENTIALS", {
      details: [
        {
          text: accessText.designApiNoAppKey,
        },
      ],
    });
  }
  const workspaceId = caller.workspace.id;
  if (caller.method === "bearer") {
    const allowed = SCOPES[operation].find((group) => !caller.scopes?.some((s) => group.includes(s)));
    if (allowed) {
      throw new PlatenError("INVALID_CREDENTIALS", {
        details: [
          {
            text: fillBoth(accessText.lacksScope, {
              scopes: { en: allowed.join(accessText.or.en), ja: allowed.join(accessText.or.ja) },
            }),
          },
        ],
      });
    }
    if (caller.grant === "client_credentials" || caller.userId === undefined) {
      const admin = caller.scopes?.includes("designs:write") === true;
      return { workspaceId, actor: { via: "bearer", clientId: caller.clientId }, admin };
    }
  }
  if (caller.role === undefined) throw denied(accessText.notMember);
  if (ROLE[operation] === "admin" && caller.role !== "admin") throw denied(accessText.needsAdmin);
  const actor: AuditActor =
    caller.method === "session"
      ? { via: "session", userId: caller.userId }
      : { via: "bearer", userId: caller.userId, clientId: caller.clientId };
  return { workspaceId, actor, admin: caller.role === "admin" };
}
