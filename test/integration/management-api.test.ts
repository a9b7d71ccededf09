import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeConfidentialClient, clientCredentialsToken } from "../helpers/identity-fixtures.ts";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import {
  makePublicClient,
  makeUser,
  manage,
  sessionOf,
  userToken,
  useStackIdentityKeys,
} from "../helpers/management-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { admin } from "../helpers/webhook-fixtures.ts";

/**
 * Webhook-endpoint management (see shared/webhooks/README.md#managing-endpoints-over-http) and application-key
 * rotation (OpenAPI rotateApplicationKey) over HTTP against the local stack, with real OAuth tokens from the
 * code flow (two clients), a client-credentials token and first-party login sessions. One stack for the file.
 */

let stack: SharedStack;
let call: ReturnType<typeof manage>;
let a: Tenant;
const t: Record<"adminOne" | "adminTwo" | "reader" | "noScope" | "cc" | "outsider", string> = {} as never;
const s: Record<"admin" | "reader" | "outsider", string> = {} as never;
let clientOne: string;
let clientTwo: string;
let adminId: string;
const hook = (n: string) => `https://hooks.example.com/${n}`;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  call = manage(stack);
  a = await createTenant(stack, "management A");
  const b = await createTenant(stack, "management B");
  clientOne = await makePublicClient(a.workspaceId, "Integration One");
  clientTwo = await makePublicClient(a.workspaceId, "Integration Two");
  const adminUser = await makeUser({ [a.workspaceId]: "admin" });
  const readerUser = await makeUser({ [a.workspaceId]: "read" });
  const outsiderUser = await makeUser({ [b.workspaceId]: "admin" });
  adminId = adminUser.id;
  t.adminOne = await userToken(stack, clientOne, adminUser, a.workspaceId);
  t.adminTwo = await userToken(stack, clientTwo, adminUser, a.workspaceId);
  t.reader = await userToken(stack, clientOne, readerUser, a.workspaceId);
  t.noScope = await userToken(stack, clientOne, adminUser, a.workspaceId, "openid designs:read");
  t.outsider = await userToken(stack, await makePublicClient(b.workspaceId, "B's"), outsiderUser, b.workspaceId);
  t.cc = await clientCredentialsToken(
    stack,
    await makeConfidentialClient(a.workspaceId, ["pdf:generate"]),
    "pdf:generate",
  );
  s.admin = await sessionOf(adminUser.id);
  s.reader = await sessionOf(readerUser.id);
  s.outsider = await sessionOf(outsiderUser.id);
});

afterAll(() => stack?.release());

const ep = () => `/workspace/${a.workspaceId}/webhook-endpoints`;
/**
 * The seven webhook-endpoint operations (and rotation), on an endpoint id that may not exist, and the
 * signing-identity writes (ADMIN, like them; shared/signing/README.md#identities).
 */
const operations = (id: string): [string, string, unknown?][] => [
  ["GET", ep()],
  ["POST", ep(), { url: hook("denied") }],
  ["PATCH", `${ep()}/${id}`, { enabled: false }],
  ["DELETE", `${ep()}/${id}`],
  ["POST", `${ep()}/${id}/secret/regenerate`],
  ["GET", `${ep()}/${id}/secret`],
  ["PATCH", `/workspace/${a.workspaceId}/webhook`, { url: hook("single") }],
  ["PATCH", "/workspace/webhook", { url: hook("single") }],
  ["POST", `/workspace/${a.workspaceId}/application-token/regenerate`],
  ["POST", `/workspace/${a.workspaceId}/signing-identities`, { label: "denied", pkcs12: "AAAA", password: "p" }],
  ["DELETE", `/workspace/${a.workspaceId}/signing-identities/${id}`],
];

async function unownedEndpoint(name: string): Promise<string> {
  const out = await admin(stack, "webhook", "create", "--workspace", a.workspaceId, "--url", hook(name), "--json");
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout).id as string;
}

describe("credentials (OpenAPI rotateApplicationKey, shared/webhooks/README.md#managing-endpoints-over-http)", () => {
  it("a client-credentials token gets 403 WORKSPACE_ROLE_DENIED on every operation, listing included", async () => {
    const id = await unownedEndpoint("cc-target");
    for (const [method, path, body] of operations(id)) {
      const res = await call(method, path, { token: t.cc }, body);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, "WORKSPACE_ROLE_DENIED"]);
    }
    expect(
      (await call("GET", ep(), { token: t.adminOne })).body.items.find((e: { id: string }) => e.id === id),
    ).toMatchObject({ enabled: true });
  });

  it("a token without pdf:generate gets 401 INVALID_CREDENTIALS on every operation, listing included", async () => {
    for (const [method, path, body] of operations("AnyEndpointId000")) {
      const res = await call(method, path, { token: t.noScope }, body);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 401, "INVALID_CREDENTIALS"]);
    }
  });

  it("an application key is not a management credential (401); no credential at all is 412", async () => {
    for (const [method, path, body] of operations("AnyEndpointId000")) {
      expect((await call(method, path, { appkey: a.appKey }, body)).status, `${method} ${path}`).toBe(401);
      expect((await call(method, path, {}, body)).body.code, `${method} ${path}`).toBe("AUTH_HEADER_MISSING");
    }
  });
});

describe("roles (rule 1)", () => {
  it("READ lists, with a token or a session; every other operation is 403 WORKSPACE_ROLE_DENIED", async () => {
    const id = await unownedEndpoint("read-target");
    for (const auth of [{ token: t.reader }, { cookie: s.reader }]) {
      expect((await call("GET", ep(), auth)).status).toBe(200);
      for (const [method, path, body] of operations(id).slice(1)) {
        if (auth.cookie && path === "/workspace/webhook") continue; // a session must name the workspace (400, below)
        const res = await call(method, path, auth, body);
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, "WORKSPACE_ROLE_DENIED"]);
      }
    }
  });

  it("another workspace: a token of it → 403 WORKSPACE_MISMATCH; a session without membership → 403 WORKSPACE_ROLE_DENIED", async () => {
    for (const [method, path, body] of operations("AnyEndpointId000")) {
      if (path === "/workspace/webhook") continue; // names no workspace: acts on the token's own
      expect((await call(method, path, { token: t.outsider }, body)).body.code, `${method} ${path}`).toBe(
        "WORKSPACE_MISMATCH",
      );
      expect((await call(method, path, { cookie: s.outsider }, body)).body.code, `${method} ${path}`).toBe(
        "WORKSPACE_ROLE_DENIED",
      );
    }
  });

  it("a session must name the workspace for the single-URL setting (400)", async () => {
    const res = await call("PATCH", "/workspace/webhook", { cookie: s.admin }, { url: hook("x") });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: "workspaceId", message: expect.any(String) }]);
  });
});

describe("ownership between two OAuth clients (rule 4)", () => {
  it("another client's endpoint is 404 for PATCH, DELETE and regenerate but listed; the admin session is not restricted", async () => {
    const created = await call("POST", ep(), { token: t.adminOne }, { url: hook("one") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: hook("one"),
      enabled: true,
      designFilterType: "all",
      targetDesignIds: [],
      ownerClientId: clientOne,
      secret: expect.stringMatching(/^whsec_/),
    });
    const id = created.body.id as string;
    for (const [method, path, body] of [
      ["PATCH", `${ep()}/${id}`, { enabled: false }],
      ["DELETE", `${ep()}/${id}`],
      ["POST", `${ep()}/${id}/secret/regenerate`],
    ] as const) {
      const res = await call(method, path, { token: t.adminTwo }, body);
      expect([method, res.status, res.body.code]).toEqual([method, 404, "WEBHOOK_ENDPOINT_NOT_FOUND"]);
    }
    const listed = await call("GET", ep(), { token: t.adminTwo });
    expect(listed.body.items.find((e: { id: string }) => e.id === id)).toMatchObject({
      ownerClientId: clientOne,
      enabled: true,
    });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);

    const own = await call("PATCH", `${ep()}/${id}`, { token: t.adminOne }, { enabled: false });
    expect(own.body).toMatchObject({ id, enabled: false, ownerClientId: clientOne });
    const bySession = await call("PATCH", `${ep()}/${id}`, { cookie: s.admin }, { enabled: true });
    expect(bySession.body).toMatchObject({ id, enabled: true, ownerClientId: clientOne });
    expect((await call("DELETE", `${ep()}/${id}`, { cookie: s.admin })).status).toBe(204);
  });

  it("an unowned endpoint is operable by any client and becomes owned on its first PATCH", async () => {
    const id = await unownedEndpoint("unowned");
    expect((await call("POST", `${ep()}/${id}/secret/regenerate`, { token: t.adminOne })).status).toBe(200);
    const adopted = await call(
      "PATCH",
      `${ep()}/${id}`,
      { token: t.adminTwo },
      { designFilterType: "selected", targetDesignIds: [a.invoiceId, "NoSuchDesign0001"] },
    );
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({
      ownerClientId: clientTwo,
      designFilterType: "selected",
      targetDesignIds: [a.invoiceId, "NoSuchDesign0001"],
      missingDesignIds: ["NoSuchDesign0001"],
    });
    expect((await call("PATCH", `${ep()}/${id}`, { token: t.adminOne }, { enabled: false })).body.code).toBe(
      "WEBHOOK_ENDPOINT_NOT_FOUND",
    );
    expect((await call("DELETE", `${ep()}/${id}`, { token: t.adminTwo })).status).toBe(204);
    expect((await call("DELETE", `${ep()}/${id}`, { token: t.adminTwo })).body.code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND");
  });
});

describe("the signing secret", () => {
  it("is readable in an admin login session, never with a token (403); regenerate returns the new one", async () => {
    const created = await call("POST", ep(), { cookie: s.admin }, { url: hook("secret") });
    expect(created.status).toBe(201);
    expect(created.body.ownerClientId).toBeUndefined();
    const id = created.body.id as string;
    const byToken = await call("GET", `${ep()}/${id}/secret`, { token: t.adminOne });
    expect([byToken.status, byToken.body.code]).toEqual([403, "ACCESS_DENIED"]);
    expect(await call("GET", `${ep()}/${id}/secret`, { cookie: s.admin })).toMatchObject({
      status: 200,
      body: { secret: created.body.secret },
    });
    const regenerated = await call("POST", `${ep()}/${id}/secret/regenerate`, { token: t.adminOne });
    // shared/webhooks/README.md#signature-format: one-value signature: the old secret stops at once unless an
    // overlap is asked for.
    expect(regenerated.body).toEqual({ id, secret: expect.stringMatching(/^whsec_/) });
    expect((await call("GET", `${ep()}/${id}/secret`, { cookie: s.admin })).body.secret).toBe(regenerated.body.secret);
    const overlapping = await call(
      "POST",
      `${ep()}/${id}/secret/regenerate`,
      { token: t.adminOne },
      { previousSecretHours: 24 },
    );
    expect(overlapping.body).toEqual({
      id,
      secret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: expect.any(String),
    });
    const tooLong = await call(
      "POST",
      `${ep()}/${id}/secret/regenerate`,
      { token: t.adminOne },
      { previousSecretHours: 100 },
    );
    expect([tooLong.status, tooLong.body.code, tooLong.body.details[0].field]).toEqual([
      400,
      "VALIDATION_FAILED",
      "previousSecretHours",
    ]);
  });

  it("a session's change from a foreign Origin is refused (403 ACCESS_DENIED); from the service's own it passes", async () => {
    const foreign = await call(
      "POST",
      ep(),
      { cookie: s.admin, origin: "https://evil.example" },
      { url: hook("csrf") },
    );
    expect([foreign.status, foreign.body.code]).toEqual([403, "ACCESS_DENIED"]);
    const own = await call(
      "POST",
      ep(),
      { cookie: s.admin, origin: new URL(stack.localJson.siteUrl).origin },
      { url: hook("csrf") },
    );
    expect(own.status).toBe(201);
    expect(
      (
        await call("DELETE", `${ep()}/${own.body.id}`, {
          cookie: s.admin,
          origin: new URL(stack.localJson.siteUrl).origin,
        })
      ).status,
    ).toBe(204);
  });
});

describe("bodies", () => {
  it("are validated: 400 VALIDATION_FAILED with details naming the field", async () => {
    const cases: [unknown, string | undefined][] = [
      [{ url: hook("v"), colour: "red" }, "colour"],
      [{ url: 42 }, "url"],
      [{ url: "http://10.0.0.1/hook" }, "url"],
      [{ url: hook("v"), designFilterType: "some" }, "designFilterType"],
      [{ url: hook("v"), targetDesignIds: "D1" }, "targetDesignIds"],
      ["{not json", undefined],
    ];
    for (const [body, field] of cases) {
      const res = await call("POST", ep(), { token: t.adminOne }, body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([400, "VALIDATION_FAILED"]);
      if (field)
        expect(
          res.body.details.map((d: { field?: string }) => d.field),
          JSON.stringify(body),
        ).toContain(field);
    }
    const wrongType = await call("PATCH", `${ep()}/NoSuchEndpoint01`, { token: t.adminOne }, { enabled: "false" });
    // The message names what is wrong (the type), not "is required" for a field that is there.
    expect(wrongType.body.details[0]).toMatchObject({
      field: "enabled",
      message: expect.stringContaining("expected boolean, received string"),
    });
  });
});

describe("the 10-endpoint limit", () => {
  it("holds under 12 concurrent creations: ten 201s, two 409 WEBHOOK_ENDPOINT_LIMIT_EXCEEDED", async () => {
    const c = await createTenant(stack, "limit");
    const owner = await makeUser({ [c.workspaceId]: "admin" });
    const cookie = await sessionOf(owner.id);
    const path = `/workspace/${c.workspaceId}/webhook-endpoints`;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call("POST", path, { cookie }, { url: hook(`limit/${i}`) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(10).fill(201), 409, 409]);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.body).toMatchObject({ code: "WEBHOOK_ENDPOINT_LIMIT_EXCEEDED", statusCode: 409 });
    expect((await call("GET", path, { cookie })).body.items).toHaveLength(10);
  });
});

describe("the single-URL setting", () => {
  it("creates the workspace's unfiltered endpoint (201 with its secret), then updates it (200)", async () => {
    const d = await createTenant(stack, "single url");
    const owner = await makeUser({ [d.workspaceId]: "admin" });
    const token = await userToken(stack, clientOne, owner, d.workspaceId);
    const first = await call("PATCH", "/workspace/webhook", { token }, { url: hook("single/1") });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      url: hook("single/1"),
      designFilterType: "all",
      enabled: true,
      ownerClientId: clientOne,
      secret: expect.stringMatching(/^whsec_/),
    });
    const second = await call(
      "PATCH",
      `/workspace/${d.workspaceId}/webhook`,
      { token },
      { url: hook("single/2"), enabled: false },
    );
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, url: hook("single/2"), enabled: false });
    expect(second.body.secret).toBeUndefined();
    const list = await call("GET", `/workspace/${d.workspaceId}/webhook-endpoints`, { token });
    expect(list.body.items).toHaveLength(1);
  });

  it("refuses a URL that is already a filtered endpoint with that endpoint's id, and changes nothing", async () => {
    const d = await createTenant(stack, "single url taken");
    const owner = await makeUser({ [d.workspaceId]: "admin" });
    const token = await userToken(stack, clientOne, owner, d.workspaceId);
    const path = `/workspace/${d.workspaceId}/webhook-endpoints`;
    const filtered = await call(
      "POST",
      path,
      { token },
      {
        url: hook("single/taken"),
        designFilterType: "selected",
        targetDesignIds: [d.invoiceId],
      },
    );
    expect(filtered.status).toBe(201);
    const refused = await call("PATCH", "/workspace/webhook", { token }, { url: hook("single/taken") });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("VALIDATION_FAILED");
    expect(refused.body.details).toEqual([
      expect.objectContaining({ field: "url", message: expect.stringContaining(`${path}/${filtered.body.id}`) }),
    ]);
    const list = await call("GET", path, { token });
    expect(list.body.items).toEqual([expect.objectContaining({ id: filtered.body.id, designFilterType: "selected" })]);
  });
});

describe("a JSON body under another content type", () => {
  it("is refused with 400 VALIDATION_FAILED naming Content-Type: no endpoint is created", async () => {
    const d = await createTenant(stack, "typed bodies");
    const owner = await makeUser({ [d.workspaceId]: "admin" });
    const token = await userToken(stack, clientOne, owner, d.workspaceId);
    const path = `/workspace/${d.workspaceId}/webhook-endpoints`;
    for (const type of ["text/plain", "application/x-www-form-urlencoded", undefined]) {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, ...(type && { "content-type": type }) },
        body: new TextEncoder().encode(JSON.stringify({ url: hook("typed") })),
      });
      expect(res.status, String(type)).toBe(400);
      expect(await res.json()).toMatchObject({ code: "VALIDATION_FAILED", details: [{ field: "Content-Type" }] });
    }
    expect((await call("GET", path, { token })).body.items).toEqual([]);
    expect((await call("POST", path, { token }, { url: hook("typed") })).status).toBe(201);
  });
});

describe("application-key rotation over HTTP (OpenAPI rotateApplicationKey)", () => {
  it("answers the new key; the old one is refused by the very next request", async () => {
    const rotated = await call("POST", `/workspace/${a.workspaceId}/application-token/regenerate`, {
      token: t.adminOne,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ applicationKey: expect.stringMatching(/^plt_/), lastRotatedAt: expect.any(String) });
    expect((await api(stack, a.appKey)("/file/designs")).status).toBe(401);
    expect((await api(stack, rotated.body.applicationKey)("/file/designs")).status).toBe(200);
    a = { ...a, appKey: rotated.body.applicationKey };
  });

  it("concurrent rotations leave exactly one valid key; a loser answers 409 with the winner's lastRotatedAt", async () => {
    const results = await Promise.all(
      [t.adminOne, t.adminTwo, t.adminOne].map((token) =>
        call("POST", `/workspace/${a.workspaceId}/application-token/regenerate`, { token }),
      ),
    );
    const winners = results.filter((r) => r.status === 200);
    const losers = results.filter((r) => r.status !== 200);
    for (const loser of losers) {
      expect(loser.body).toMatchObject({ statusCode: 409, code: "APP_KEY_ROTATION_CONFLICT" });
      expect(winners.map((w) => w.body.lastRotatedAt)).toContain(loser.body.details[0].message);
    }
    const valid = await Promise.all(
      winners.map(async (w) => (await api(stack, w.body.applicationKey)("/file/designs")).status),
    );
    expect(valid.filter((status) => status === 200)).toHaveLength(1);
    expect((await api(stack, a.appKey)("/file/designs")).status).toBe(401);
  });
});

describe("audit and the OpenAPI document", () => {
  it("records who changed what: user and client for tokens, the user for sessions", async () => {
    const out = await admin(stack, "audit", "list", "--workspace", a.workspaceId, "--json");
    expect(out.code, out.stderr).toBe(0);
    const entries = JSON.parse(out.stdout) as {
      action: string;
      actor: Record<string, string>;
      target?: string;
      at: string;
    }[];
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: "application-key.rotate",
        actor: { via: "bearer", userId: adminId, clientId: clientOne },
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ action: "webhook-endpoint.create", actor: { via: "session", userId: adminId } }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ action: "webhook-endpoint.secret-read", actor: { via: "session", userId: adminId } }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: "webhook-endpoint.update",
        actor: { via: "bearer", userId: adminId, clientId: clientTwo },
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ action: "webhook-endpoint.create", actor: { via: "admin-cli" } }),
    );
    expect([...entries].sort((x, y) => y.at.localeCompare(x.at))).toEqual(entries);
  });

  it("serves the OpenAPI 3.1 document without authentication", async () => {
    const res = await fetch(`${stack.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; servers: { url: string }[]; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: stack.localJson.apiBaseUrl }]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/workspace/{workspaceId}/webhook-endpoints", "/file/sync/single", "/openapi.json"]),
    );
  });
});

describe("signing out of the site", () => {
  const origin = () => `http://127.0.0.1:${stack.port}`;
  const login = async (user: { email: string; password: string }) => {
    const res = await fetch(`${origin()}/login?return_to=%2Foutput-history`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: user.email, password: user.password }),
      redirect: "manual",
    });
    expect([res.status, res.headers.get("location")]).toEqual([303, "/output-history"]);
    return res.headers.getSetCookie()[0]!.split(";")[0]!;
  };
  const history = (cookie: string) => fetch(`${origin()}/output-history`, { headers: { cookie }, redirect: "manual" });

  it("ends the session on the server: a copied cookie stops working, on the site and the management API; a new login works", async () => {
    const user = await makeUser({ [a.workspaceId]: "admin" });
    const cookie = await login(user);
    const elsewhere = await sessionOf(user.id); // the same user's session on another device
    const shell = await history(cookie);
    expect(shell.status).toBe(200);
    // The page shell's sign-out form carries its CSRF token (site-sign-out.test.ts).
    const token = /name="logout_csrf" value="([^"]+)"/.exec(await shell.text())?.[1] ?? "";
    const out = await fetch(`${origin()}/logout`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ logout_csrf: token }),
      redirect: "manual",
    });
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()[0]).toMatch(/^platen_session=;.*Max-Age=0/);
    for (const old of [cookie, elsewhere]) {
      const res = await history(old);
      expect([res.status, new URL(res.headers.get("location")!).pathname]).toEqual([303, "/login"]);
      expect((await call("GET", `/workspace/${a.workspaceId}/webhook-endpoints`, { cookie: old })).status).toBe(401);
    }
    expect((await history(await login(user))).status).toBe(200);
  });

  it("returns only to paths of this site after login: a tab or backslash cannot make it another host", async () => {
    const user = await makeUser({ [a.workspaceId]: "read" });
    for (const returnTo of ["/\t/evil.example", "/\\evil.example", "//evil.example", "/\r\n/evil.example"]) {
      const res = await fetch(`${origin()}/login?return_to=${encodeURIComponent(returnTo)}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: user.email, password: user.password }),
        redirect: "manual",
      });
      expect([res.status, res.headers.get("location")], JSON.stringify(returnTo)).toEqual([303, "/"]);
    }
  });
});
