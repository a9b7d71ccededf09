import { describe, expect, it } from "vitest";
import {
  authorizeManagement,
  type ManagementCaller,
  type ManagementOperation,
  requiredRole,
} from "#shared/auth/management-access.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";

/**
 * The management rules (shared/webhooks/README.md#managing-endpoints-over-http) as a pure function over
 * in-memory callers.
 */

const ws: Workspace = {
  id: "WorkspaceAAAAAAA",
  name: "A",
  plan: "standard",
  appKeyRotatedAt: "2026-01-01T00:00:00.000Z",
  createdAt: "2026-01-01T00:00:00.000Z",
};
const operations = Object.keys(requiredRole) as ManagementOperation[];
const adminOps = operations.filter((op) => requiredRole[op] === "admin");

const token = (extra: Partial<ManagementCaller> = {}): ManagementCaller => ({
  workspace: ws,
  method: "bearer",
  userId: "user-1",
  clientId: "client-A",
  scopes: ["openid", "pdf:generate"],
  grant: "authorization_code",
  role: "admin",
  ...extra,
});
const session = (role?: "admin" | "read"): ManagementCaller => ({
  workspace: ws,
  method: "session",
  userId: "user-1",
  ...(role && { role }),
});

/** The catalogue code and status a call ends with, or "ok". */
function outcome(caller: ManagementCaller, op: ManagementOperation, path: string | null = ws.id): string {
  try {
    authorizeManagement(caller, op, path ?? undefined);
    return "ok";
  } catch (err) {
    if (!isPlatenError(err)) throw err;
    return `${err.status} ${err.code}`;
  }
}

describe("credentials that never manage", () => {
  it.each(operations)("%s: an application key is 401 INVALID_CREDENTIALS", (op) => {
    expect(outcome({ workspace: ws, method: "appkey" }, op)).toBe("401 INVALID_CREDENTIALS");
  });

  it.each(operations)(
    "%s: an OAuth token without pdf:generate is 401 INVALID_CREDENTIALS, whatever the role (rule 2)",
    (op) => {
      expect(outcome(token({ scopes: ["openid", "designs:read"] }), op)).toBe("401 INVALID_CREDENTIALS");
      expect(outcome(token({ scopes: undefined }), op)).toBe("401 INVALID_CREDENTIALS");
    },
  );

  it.each(operations)(
    "%s: a client-credentials token is 403 WORKSPACE_ROLE_DENIED, listing included (rule 3)",
    (op) => {
      const cc = token({ grant: "client_credentials", userId: undefined, role: undefined });
      expect(outcome(cc, op)).toBe("403 WORKSPACE_ROLE_DENIED");
      // Even when a role were somehow attached: no end user, no membership.
      expect(outcome({ ...cc, role: "admin" }, op)).toBe("403 WORKSPACE_ROLE_DENIED");
    },
  );
});

describe("roles (rule 1)", () => {
  it("READ lists; every other operation needs ADMIN", () => {
    expect(outcome(token({ role: "read" }), "list-endpoints")).toBe("ok");
    expect(outcome(session("read"), "list-endpoints")).toBe("ok");
    for (const op of adminOps) {
      expect(outcome(token({ role: "read" }), op), op).toBe("403 WORKSPACE_ROLE_DENIED");
      expect(outcome(session("read"), op), op).toBe("403 WORKSPACE_ROLE_DENIED");
    }
  });

  it.each(operations)("%s: no membership is 403 WORKSPACE_ROLE_DENIED (token and session)", (op) => {
    expect(outcome(token({ role: undefined }), op)).toBe("403 WORKSPACE_ROLE_DENIED");
    expect(outcome(session(), op)).toBe("403 WORKSPACE_ROLE_DENIED");
  });

  it("an ADMIN token may do everything but read the secret (403 ACCESS_DENIED); an ADMIN session everything", () => {
    for (const op of operations) {
      expect(outcome(token(), op), op).toBe(op === "read-secret" ? "403 ACCESS_DENIED" : "ok");
      expect(outcome(session("admin"), op), op).toBe("ok");
    }
  });
});

describe("workspace in the path", () => {
  it.each(operations)("%s: another workspace than the token's is 403 WORKSPACE_MISMATCH", (op) => {
    expect(outcome(token(), op, "WorkspaceBBBBBBB")).toBe("403 WORKSPACE_MISMATCH");
  });

  it("without one (PATCH /workspace/webhook) a token acts on its own workspace; a session must name it (400)", () => {
    expect(authorizeManagement(token(), "set-workspace-webhook", undefined).workspaceId).toBe(ws.id);
    expect(outcome(session("admin"), "set-workspace-webhook", null)).toBe("400 VALIDATION_FAILED");
  });
});

describe("the grant: ownership and the audit actor (rule 4)", () => {
  it("a token's changes are bound to its client and recorded as user + client", () => {
    expect(authorizeManagement(token(), "update-endpoint", ws.id)).toEqual({
      workspaceId: ws.id,
      ownerClientId: "client-A",
      actor: { via: "bearer", userId: "user-1", clientId: "client-A" },
    });
  });

  it("a session is not restricted by ownership and is recorded as the user", () => {
    expect(authorizeManagement(session("admin"), "delete-endpoint", ws.id)).toEqual({
      workspaceId: ws.id,
      actor: { via: "session", userId: "user-1" },
    });
  });
});
