import { describe, expect, it } from "vitest";
import type { HeaderReader, Principal } from "#shared/auth/authenticate.ts";
import { type CallerDeps, checkSessionOrigin, resolveManagementCaller } from "#shared/auth/management-caller.ts";
import { isPlatenError, PlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";

/** Who calls a management route, resolved over in-memory identity fakes. */

const workspace = (id: string): Workspace => ({
  id,
  name: id,
  plan: "standard",
  appKeyRotatedAt: "2026-01-01T00:00:00.000Z",
  createdAt: "2026-01-01T00:00:00.000Z",
});
const A = workspace("WorkspaceAAAAAAA");
const memberships = new Map([[`${A.id}#alice`, { role: "admin" as const }]]);

const deps: CallerDeps = {
  authenticate: async (header: HeaderReader): Promise<Principal> => {
    if (header("appkey") !== undefined && header("authorization") !== undefined)
      throw new PlatenError("INVALID_CREDENTIALS");
    if (header("appkey") === "plt_good") return { workspace: A, method: "appkey" };
    if (header("authorization") === "Bearer good")
      return {
        workspace: A,
        method: "bearer",
        userId: "alice",
        clientId: "c1",
        scopes: ["pdf:generate"],
        grant: "authorization_code",
        role: "admin",
      };
    throw new PlatenError("INVALID_CREDENTIALS");
  },
  readSession: async (cookie) => (cookie?.includes("platen_session=alice") ? { userId: "alice" } : undefined),
  hasSessionCookie: (cookie) => cookie?.includes("platen_session=") ?? false,
  findMembership: async (ws, user) => memberships.get(`${ws}#${user}`),
  getWorkspace: async (id) => (id === A.id ? A : undefined),
};

const headers =
  (h: Record<string, string>): HeaderReader =>
  (name) =>
    h[name.toLowerCase()];
async function outcome(h: Record<string, string>, path: string | null = A.id): Promise<unknown> {
  try {
    return await resolveManagementCaller(headers(h), path ?? undefined, deps);
  } catch (err) {
    if (!isPlatenError(err)) throw err;
    return `${err.status} ${err.code}`;
  }
}

describe("resolveManagementCaller", () => {
  it("judges tokens and appkeys with authenticate, as every route does", async () => {
    expect(await outcome({ authorization: "Bearer good" })).toMatchObject({
      method: "bearer",
      clientId: "c1",
      role: "admin",
    });
    expect(await outcome({ appkey: "plt_good" })).toMatchObject({ method: "appkey" });
    expect(await outcome({ authorization: "Bearer good", appkey: "plt_good" })).toBe("401 INVALID_CREDENTIALS");
    // A token wins over a session cookie sent along (the browser adds it on its own).
    expect(await outcome({ authorization: "Bearer good", cookie: "platen_session=alice" })).toMatchObject({
      method: "bearer",
    });
  });

  it("resolves a login session against the path's workspace", async () => {
    expect(await outcome({ cookie: "theme=dark; platen_session=alice" })).toEqual({
      workspace: A,
      method: "session",
      userId: "alice",
      role: "admin",
    });
  });

  it("refuses a session outside its memberships, or for an unknown workspace, alike (403)", async () => {
    expect(await outcome({ cookie: "platen_session=alice" }, "WorkspaceBBBBBBB")).toBe("403 WORKSPACE_ROLE_DENIED");
    memberships.set("WorkspaceCCCCCCC#alice", { role: "admin" });
    expect(await outcome({ cookie: "platen_session=alice" }, "WorkspaceCCCCCCC")).toBe("403 WORKSPACE_ROLE_DENIED");
  });

  it("asks a session to name its workspace (400), a stale session cookie is 401, anything else is 412", async () => {
    expect(await outcome({ cookie: "platen_session=alice" }, null)).toBe("400 VALIDATION_FAILED");
    expect(await outcome({ cookie: "platen_session=expired" })).toBe("401 INVALID_CREDENTIALS");
    expect(await outcome({ cookie: "theme=dark" })).toBe("412 AUTH_HEADER_MISSING");
    expect(await outcome({})).toBe("412 AUTH_HEADER_MISSING");
  });
});

describe("checkSessionOrigin", () => {
  const session = { workspace: A, method: "session" as const, userId: "alice", role: "admin" as const };
  const own = ["https://app.example", "https://api.example"];
  const check = (caller: Parameters<typeof checkSessionOrigin>[0], method: string, origin?: string) => {
    try {
      checkSessionOrigin(caller, method, origin, own);
      return "ok";
    } catch (err) {
      return isPlatenError(err) ? `${err.status} ${err.code}` : String(err);
    }
  };

  it("refuses a session's change from a foreign page; reads, own pages, non-browser calls and tokens pass", () => {
    expect(check(session, "POST", "https://evil.example")).toBe("403 ACCESS_DENIED");
    expect(check(session, "DELETE", "null")).toBe("403 ACCESS_DENIED");
    expect(check(session, "PATCH", "https://app.example")).toBe("ok");
    expect(check(session, "POST", undefined)).toBe("ok");
    expect(check(session, "GET", "https://evil.example")).toBe("ok");
    expect(check({ ...session, method: "bearer" }, "POST", "https://evil.example")).toBe("ok");
  });
});
