import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DesignCaller, designApi, jsonDesign } from "../helpers/design-fixtures.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import {
  makePublicClient,
  makeUser,
  manage,
  sessionOf,
  userToken,
  useStackIdentityKeys,
} from "../helpers/management-fixtures.ts";
import { authOrigin } from "../helpers/oauth-http.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";

/**
 * Who may call the design API and the gallery (shared/authoring/README.md#who-may-call-it), row by row, over
 * HTTP with real tokens (code flow and client credentials) and login sessions: appkeys never,
 * scopes per operation, READ to read and ADMIN to change, client credentials by scopes alone,
 * another workspace's ids 404. Then the gallery: share, the public list, copy into another
 * workspace (same PDF bytes), withdraw.
 */

let stack: SharedStack;
let call: ReturnType<typeof designApi>;
let a: Tenant;
let b: Tenant;
const c: Record<string, DesignCaller> = {};
/** A design of workspace A (with a draft) that no test archives. */
let design: string;
/** A design of workspace B. */
let foreign: string;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  call = designApi(stack);
  a = await createTenant(stack, "access A");
  b = await createTenant(stack, "access B");
  const client = await makePublicClient(a.workspaceId, "Studio client");
  const adminUser = await makeUser({ [a.workspaceId]: "admin" });
  const readerUser = await makeUser({ [a.workspaceId]: "read" });
  const outsider = await makeUser({ [b.workspaceId]: "admin" });
  const all = "openid designs:read designs:write templates:read templates:write";
  c.admin = { token: await userToken(stack, client, adminUser, a.workspaceId, all) };
  c.reader = { token: await userToken(stack, client, readerUser, a.workspaceId, all) };
  c.adminReadScope = { token: await userToken(stack, client, adminUser, a.workspaceId, "openid designs:read") };
  c.generateOnly = { token: await userToken(stack, client, adminUser, a.workspaceId, "openid pdf:generate") };
  const cc = (scopes: string) =>
    makeConfidentialClient(a.workspaceId, scopes.split(" ") as never).then((k) =>
      clientCredentialsToken(stack, k, scopes),
    );
  c.ccWrite = { token: await cc("designs:write templates:write") };
  c.ccRead = { token: await cc("designs:read") };
  c.sessionAdmin = { cookie: await sessionOf(adminUser.id), workspace: a.workspaceId };
  c.sessionReader = { cookie: await sessionOf(readerUser.id), workspace: a.workspaceId };
  c.sessionNoWorkspace = { cookie: await sessionOf(adminUser.id) };
  c.sessionOutsider = { cookie: await sessionOf(outsider.id), workspace: a.workspaceId };
  c.appkey = { appkey: a.appKey };
  c.nobody = {};
  const bWriter = {
    token: await clientCredentialsToken(
      stack,
      await makeConfidentialClient(b.workspaceId, ["designs:write", "templates:read"]),
      "designs:write templates:read",
    ),
  };
  c.bWriter = bWriter;
  design = (await call("POST", "/designs", c.ccWrite!, jsonDesign("Shared design"))).body.id;
  await call("PUT", `/designs/${design}/draft`, c.ccWrite!, jsonDesign("Shared design"));
  foreign = (await call("POST", "/designs", bWriter, jsonDesign("B's design"))).body.id;
});

afterAll(() => stack?.release());

type Kind = "read" | "write";
/** Every design route, on a design id; `write` routes change something. */
const routesOn = (id: string): [Kind, string, string, unknown?][] => [
  ["read", "GET", "/designs"],
  ["read", "GET", `/designs/${id}`],
  ["read", "GET", `/designs/${id}/versions`],
  ["read", "GET", `/designs/${id}/versions/1`],
  ["read", "GET", `/designs/${id}/versions/1/bundle`],
  ["read", "GET", `/designs/${id}/draft`],
  ["read", "POST", "/designs/preview", { designId: id, version: 1 }],
  ["write", "POST", "/designs", jsonDesign("Made by a matrix row")],
  ["write", "PATCH", `/designs/${id}`, { description: "patched" }],
  ["write", "POST", `/designs/${id}/versions`, jsonDesign("Shared design")],
  ["write", "PUT", `/designs/${id}/draft`, jsonDesign("Shared design")],
  ["write", "DELETE", `/designs/${id}/draft`],
];

async function expectEvery(caller: () => DesignCaller, kinds: Kind[], status: number, code?: string) {
  for (const [kind, method, path, body] of routesOn(design)) {
    if (!kinds.includes(kind)) continue;
    const res = await call(method, path, caller(), body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    if (code) expect(res.body.code, `${method} ${path}`).toBe(code);
  }
}

async function expectAllowed(caller: () => DesignCaller, kinds: Kind[]) {
  for (const [kind, method, path, body] of routesOn(design)) {
    if (!kinds.includes(kind)) continue;
    // The draft read needs a draft: a previous row may have deleted it.
    if (path.endsWith("/draft") && method === "GET")
      await call("PUT", `/designs/${design}/draft`, c.ccWrite!, jsonDesign("Shared design"));
    const res = await call(method, path, caller(), body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(300);
  }
}

describe("who may call the design API", () => {
  it("an appkey (the generation credential) is 401 INVALID_CREDENTIALS on every route; nothing at all is 412", async () => {
    await expectEvery(() => c.appkey!, ["read", "write"], 401, "INVALID_CREDENTIALS");
    await expectEvery(() => c.nobody!, ["read", "write"], 412, "AUTH_HEADER_MISSING");
  });

  it("a token without a design scope is 401; designs:read reads but does not write", async () => {
    await expectEvery(() => c.generateOnly!, ["read", "write"], 401, "INVALID_CREDENTIALS");
    await expectAllowed(() => c.adminReadScope!, ["read"]);
    await expectEvery(() => c.adminReadScope!, ["write"], 401, "INVALID_CREDENTIALS");
  });

  it("a user needs READ to read and ADMIN to change (403 WORKSPACE_ROLE_DENIED)", async () => {
    await expectAllowed(() => c.reader!, ["read"]);
    await expectEvery(() => c.reader!, ["write"], 403, "WORKSPACE_ROLE_DENIED");
    await expectAllowed(() => c.admin!, ["read", "write"]);
  });

  it("client credentials act by their scopes alone (the CI-pipeline case)", async () => {
    await expectAllowed(() => c.ccWrite!, ["read", "write"]);
    await expectAllowed(() => c.ccRead!, ["read"]);
    await expectEvery(() => c.ccRead!, ["write"], 401, "INVALID_CREDENTIALS");
  });

  it("the login session, naming its workspace with X-Workspace-Id, follows the member's role", async () => {
    await expectAllowed(() => c.sessionAdmin!, ["read", "write"]);
    await expectAllowed(() => c.sessionReader!, ["read"]);
    await expectEvery(() => c.sessionReader!, ["write"], 403, "WORKSPACE_ROLE_DENIED");
    await expectEvery(() => c.sessionNoWorkspace!, ["read"], 400, "VALIDATION_FAILED");
    await expectEvery(() => c.sessionOutsider!, ["read", "write"], 403, "WORKSPACE_ROLE_DENIED");
    const crossSite = await call(
      "PATCH",
      `/designs/${design}`,
      { ...c.sessionAdmin!, origin: "https://evil.example" },
      {
        description: "x",
      },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe("ACCESS_DENIED");
  });

  it("a token whose X-Workspace-Id names another workspace is 401", async () => {
    const res = await call("GET", "/designs", { ...c.admin!, workspace: b.workspaceId });
    expect(res.status).toBe(401);
  });

  it("another workspace's design, or an unknown id, is 404 DESIGN_NOT_FOUND on every route that names one", async () => {
    for (const id of [foreign, "0000000000000000", "x".repeat(300)]) {
      for (const [, method, path, body] of routesOn(id)) {
        if (!path.includes(id) && !(body as { designId?: string } | undefined)?.designId) continue;
        const res = await call(method, path, c.admin!, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(["DESIGN_NOT_FOUND", "DESIGN_VERSION_NOT_FOUND"], `${method} ${path}`).toContain(res.body.code);
      }
    }
  });

  it("archived designs are listed only for ADMIN with archived=true", async () => {
    const id = (await call("POST", "/designs", c.ccWrite!, jsonDesign("Archived one"))).body.id;
    expect((await call("DELETE", `/designs/${id}`, c.sessionAdmin!)).status).toBe(204);
    expect((await call("GET", "/designs?archived=true", c.reader!)).status).toBe(403);
    expect((await call("GET", "/designs?archived=true", c.ccRead!)).status).toBe(403);
    const listed = await call("GET", "/designs?archived=true", c.admin!);
    expect(listed.body.designs.map((d: { id: string }) => d.id)).toContain(id);
    expect((await call("GET", `/designs/${id}`, c.admin!)).status).toBe(404);
  });

  it("an archived design stays in a webhook's filter, flagged as missing", async () => {
    const id = (await call("POST", "/designs", c.ccWrite!, jsonDesign("Filtered"))).body.id;
    const session = { cookie: c.sessionAdmin!.cookie! };
    const endpoints = manage(stack);
    const created = await endpoints("POST", `/workspace/${a.workspaceId}/webhook-endpoints`, session, {
      url: "https://hooks.example.com/designs",
      designFilterType: "selected",
      targetDesignIds: [id],
    });
    expect(created.status).toBe(201);
    expect(created.body.missingDesignIds).toBeUndefined();
    await call("DELETE", `/designs/${id}`, c.admin!);
    const list = await endpoints("GET", `/workspace/${a.workspaceId}/webhook-endpoints`, session);
    const mine = list.body.items.find((e: { id: string }) => e.id === created.body.id);
    expect(mine.targetDesignIds).toEqual([id]);
    expect(mine.missingDesignIds).toEqual([id]);
  });
});

describe("the template gallery", () => {
  let templateId: string;

  it("sharing needs templates:write and ADMIN; the template is public at once", async () => {
    const body = { designId: design, version: 1, description: "A shared test design", tags: ["test", "matrix"] };
    expect((await call("POST", "/templates", c.adminReadScope!, body)).status).toBe(401);
    expect((await call("POST", "/templates", c.reader!, body)).status).toBe(403);
    expect((await call("POST", "/templates", c.appkey!, body)).status).toBe(401);
    expect((await call("POST", "/templates", c.admin!, { ...body, designId: foreign })).status).toBe(404);
    const shared = await call("POST", "/templates", c.admin!, body);
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    templateId = shared.body.id;
    expect(shared.body).toMatchObject({ label: "Shared design", tags: ["test", "matrix"], pageSize: "A4", version: 1 });
    const list = await fetch(`${authOrigin(stack)}/public/templates?tag=matrix`);
    expect(list.status).toBe(200);
    expect(list.headers.get("access-control-allow-origin")).toBe("*");
    const listed = (await list.json()) as { templates: Record<string, unknown>[] };
    expect(listed.templates).toEqual([
      {
        id: templateId,
        label: "Shared design",
        description: "A shared test design",
        tags: ["test", "matrix"],
        thumbnail: expect.stringMatching(/\/public\/templates\/\w+\/thumbnail$/),
        pageSize: "A4",
        publisher: "access A",
        updatedAt: expect.any(String),
      },
    ]);
    // A design's own thumbnail URL takes a design-writing token too (a CI pipeline's).
    const own = await call("GET", `/designs/${design}`, c.ccWrite!);
    const ownThumb = await fetch(own.body.thumbnail, { headers: { authorization: `Bearer ${c.ccWrite!.token}` } });
    expect(ownThumb.status).toBe(200);
    const thumb = await fetch(listed.templates[0]!.thumbnail as string);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/png");
    const search = (await (await fetch(`${authOrigin(stack)}/public/templates?q=SHARED%20DESIGN`)).json()) as {
      templates: { id: string }[];
    };
    expect(search.templates.map((t) => t.id)).toContain(templateId);
    expect((await fetch(`${authOrigin(stack)}/public/templates?page=0`)).status).toBe(400);
  });

  it("sharing also needs a scope that reads designs: templates:write alone is refused, with designs:read it shares", async () => {
    const token = async (scopes: string) => ({
      token: await clientCredentialsToken(
        stack,
        await makeConfidentialClient(a.workspaceId, scopes.split(" ") as never),
        scopes,
      ),
    });
    const body = { designId: design, version: 1, tags: ["matrix"] };
    const refused = await call("POST", "/templates", await token("templates:write"), body);
    expect([refused.status, refused.body.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    expect(refused.body.details).toEqual([
      expect.objectContaining({ message: "the access token lacks the designs:read or designs:write scope" }),
    ]);
    const shared = await call("POST", "/templates", await token("templates:write designs:read"), body);
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    expect(shared.body.id).toBe(templateId); // sharing again replaces the design's entry
    expect((await call("POST", "/templates", c.ccWrite!, body)).status).toBe(201); // designs:write reads too
  });

  it("reading a template's detail or bundle needs templates:read", async () => {
    const detail = await call("GET", `/templates/${templateId}`, c.bWriter!);
    expect(detail.status).toBe(200);
    expect(detail.body.parameters.map((p: { name: string }) => p.name)).toEqual(["title", "body"]);
    expect((await call("GET", `/templates/${templateId}/bundle`, c.bWriter!)).headers.get("content-type")).toBe(
      "application/zip",
    );
    expect((await call("GET", `/templates/${templateId}`, c.ccRead!)).status).toBe(401);
    expect((await call("GET", "/templates/0000000000000000", c.bWriter!)).body.code).toBe("TEMPLATE_NOT_FOUND");
  });

  it("a template copied into another workspace generates the same PDF bytes, apart from dates", async () => {
    const copy = await call("POST", "/designs", c.bWriter!, { fromTemplate: templateId, label: "My copy" });
    expect(copy.status, JSON.stringify(copy.body)).toBe(201);
    expect(copy.body).toMatchObject({ label: "My copy", latestVersion: 1 });
    const generate = async (appKey: string, designId: string) => {
      const res = await fetch(`${stack.baseUrl}/file/sync/single`, {
        method: "POST",
        headers: { appkey: appKey, "content-type": "application/json" },
        body: JSON.stringify({
          designId,
          version: 1,
          content: { fileName: "same", params: { title: "T", body: "B" } },
        }),
      });
      expect(res.status).toBe(200);
      return normalizeDates(Buffer.from(await res.arrayBuffer()));
    };
    expect(await generate(b.appKey, copy.body.id)).toEqual(await generate(a.appKey, design));
  });

  it("withdrawing: another workspace's attempt is 404; the owner's removes it", async () => {
    const other = await call("DELETE", `/templates/${templateId}`, c.bWriter!);
    expect(other.status).toBe(401); // B's token lacks templates:write
    const bAdmin = {
      token: await clientCredentialsToken(
        stack,
        await makeConfidentialClient(b.workspaceId, ["templates:write"]),
        "templates:write",
      ),
    };
    expect((await call("DELETE", `/templates/${templateId}`, bAdmin)).body.code).toBe("TEMPLATE_NOT_FOUND");
    expect((await call("DELETE", `/templates/${templateId}`, c.reader!)).status).toBe(403);
    expect((await call("DELETE", `/templates/${templateId}`, c.admin!)).status).toBe(204);
    expect((await call("GET", `/templates/${templateId}`, c.admin!)).status).toBe(404);
  });

  it("withdrawing an id too long for a DynamoDB key is 404, like reading it (it answered 500)", async () => {
    const res = await call("DELETE", `/templates/${"a".repeat(2_000)}`, c.admin!);
    expect([res.status, res.body.code]).toEqual([404, "TEMPLATE_NOT_FOUND"]);
  });
});

/** PDF dates (Info and XMP) and the document ID derive from the time; everything else must match. */
function normalizeDates(pdf: Buffer): string {
  return pdf
    .toString("latin1")
    .replace(/\/(CreationDate|ModDate) \(D:[^)]*\)/g, "/$1 ()")
    .replace(/<xmp:(\w+Date)>[^<]*</g, "<xmp:$1><")
    .replace(/\/ID \[<[0-9A-Fa-f]+> ?<[0-9A-Fa-f]+>\]/g, "/ID []");
}
