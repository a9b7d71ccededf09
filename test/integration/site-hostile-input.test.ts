import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designApi, jsonDesign } from "../helpers/design-fixtures.ts";
import { clientCredentialsToken, makeConfidentialClient, makeUser } from "../helpers/identity-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { authOrigin } from "../helpers/oauth-http.ts";
import { csrfOf } from "../helpers/site-direct.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant } from "../helpers/sync-fixtures.ts";
import { form, loginCookie, siteAs } from "../helpers/site-fixtures.ts";

/**
 * Input that must be refused or bounded, not worked on until a time-out or a 500: the
 * history's diff of two huge versions, a publish call whose JSON does not parse, sample data nested
 * too deep, path segments whose percent-escapes do not decode, and words a forged link puts on the
 * history page. Over HTTP against `npm start`, as an ADMIN of a workspace of its own who logs in with the real form.
 */
let stack: SharedStack;
let origin: string;
let cookie = "";
let wsA: string;

/** Requests to the site as the logged-in ADMIN, without following redirects. */
const { as: asAdmin, pageOf } = siteAs(() => ({ origin, cookie }));
/** A call of the editor's script: JSON with the page's CSRF token in its header. */
const scriptCall = (method: string, path: string, csrf: string, body: string) =>
  asAdmin(path, { method, headers: { "content-type": "application/json", "x-csrf-token": csrf }, body });

/** A new blank design of workspace A, made with the designs page's form; its id. */
async function blankDesign(label: string): Promise<string> {
  const created = await asAdmin(
    "/designs",
    form({ csrf: csrfOf(await pageOf("/designs")), workspace: wsA, kind: "blank", label }),
  );
  expect(created.status).toBe(303);
  return created.headers.get("location")!.split("/").pop()!;
}

/** Saves the editor's fields as the draft and publishes it, as the editor's script does; the new version. */
async function publishStyle(designId: string, style: string, expectedLatestVersion: number): Promise<number> {
  const csrf = csrfOf(await pageOf(`/designs/${designId}`));
  const fields = { template: "<p>huge style</p>\n", style, parameters: [], sampleParams: {} };
  const put = await scriptCall("PUT", `/designs/${designId}/draft`, csrf, JSON.stringify(fields));
  expect(put.status, await put.clone().text()).toBe(200);
  const published = await scriptCall(
    "POST",
    `/designs/${designId}/publish`,
    csrf,
    JSON.stringify({ expectedLatestVersion }),
  );
  expect(published.status, await published.clone().text()).toBe(201);
  return ((await published.json()) as { version: number }).version;
}

/**
 * JSON text of `value` with `{"list": [[[…]]]}` nested `depth` levels in place of the string `"DEEP"`:
 * written out by hand, since JSON.stringify of it would overflow this process's stack too.
 */
const withDeep = (value: unknown, depth: number) =>
  JSON.stringify(value).replace('"DEEP"', `{"list":${"[".repeat(depth)}${"]".repeat(depth)}}`);

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  origin = new URL(stack.localJson.siteUrl).origin;
  wsA = (await createTenant(stack, "Hostile input A")).workspaceId;
  cookie = await loginCookie(origin, await makeUser({ [wsA]: "admin" }));
});

afterAll(() => stack?.release());

describe("the history's diff is bounded", () => {
  it("answers two 500,000-line versions with “too large to compare” and both versions to download, in en and ja", async () => {
    const designId = await blankDesign("Huge style");
    // 1,000,000 characters each, the most a style may hold: every line differs.
    const v2 = await publishStyle(designId, "a\n".repeat(500_000), 1);
    const v3 = await publishStyle(designId, "b\n".repeat(500_000), v2);
    const res = await asAdmin(`/designs/${designId}/versions?from=${v2}&to=${v3}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('data-too-large="style.css"');
    expect(text).toContain("Too large to compare here");
    expect(text).toContain(`href="/designs/${designId}/versions/${v2}/bundle"`);
    expect(text).toContain(`href="/designs/${designId}/versions/${v3}/bundle"`);
    expect(text).not.toContain('data-file="style.css"');
    const ja = await (
      await asAdmin(`/designs/${designId}/versions?from=${v2}&to=${v3}`, { headers: { "accept-language": "ja" } })
    ).text();
    expect(ja).toContain("大きすぎるためここでは比較できません");
    // The offered files are the versions' bundles.
    const bundle = await asAdmin(`/designs/${designId}/versions/${v3}/bundle`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("application/zip");
  });
});

describe("bad input is a 4xx with the catalogue's body or the site's error page, never a 500", () => {
  let designId: string;
  let csrf: string;

  beforeAll(async () => {
    designId = await blankDesign("Bad input");
    csrf = csrfOf(await pageOf(`/designs/${designId}`));
  });

  it("the editor's publish call with JSON that does not parse, or is not an object: 400 VALIDATION_FAILED", async () => {
    for (const body of ["{not json", "[1, 2]", '"text"']) {
      const res = await scriptCall("POST", `/designs/${designId}/publish`, csrf, body);
      expect(res.status, body).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const answer = (await res.json()) as { code: string; message: unknown };
      expect(answer.code).toBe("VALIDATION_FAILED");
      expect(JSON.stringify(answer)).not.toMatch(/SyntaxError|at .*\.ts/);
    }
  });

  it("sampleParams nested deeper than 64 levels: 422 DESIGN_BUNDLE_INVALID naming the field, on every way in", async () => {
    // The editor's script: the draft's autosave and the preview.
    const fields = withDeep({ template: "<p>x</p>", style: "", parameters: [], sampleParams: "DEEP" }, 100_000);
    for (const path of [`/designs/${designId}/draft`, `/designs/${designId}/preview`]) {
      const res = await scriptCall(path.endsWith("draft") ? "PUT" : "POST", path, csrf, fields);
      expect(res.status, path).toBe(422);
      const answer = (await res.json()) as {
        code: string;
        details: { file: string; field: string; message: string }[];
      };
      expect(answer.code).toBe("DESIGN_BUNDLE_INVALID");
      expect(answer.details[0]).toMatchObject({ file: "design.json", message: "nests deeper than 64 levels" });
      expect(answer.details[0]!.field).toMatch(/^sampleParams\.list\.0\.0\./);
    }
    // The editor without script: the form comes back with the problem, the text kept.
    const saved = await asAdmin(
      `/designs/${designId}/draft`,
      form({ csrf, template: "<p>x</p>", style: "", parameters: "[]", sampleParams: withDeep("DEEP", 5_000) }),
    );
    expect(saved.status).toBe(422);
    expect(await saved.text()).toContain("nests deeper than 64 levels");
    // The design API, with a token of another workspace.
    const tenant = await createTenant(stack, "deep sample");
    const client = await makeConfidentialClient(tenant.workspaceId, ["designs:read", "designs:write"]);
    const writer = { token: await clientCredentialsToken(stack, client, "designs:read designs:write") };
    const call = designApi(stack);
    const refused = await call(
      "POST",
      "/designs",
      writer,
      withDeep(jsonDesign("Deep", { sampleParams: "DEEP" }), 100_000),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("DESIGN_BUNDLE_INVALID");
    expect(refused.body.details[0].field).toMatch(/^sampleParams\.list\./);
    // sampleParams is level 1 of its 64 levels: a list of 63 nested arrays is the deepest a draft takes.
    const draftWith = (depth: number) =>
      scriptCall(
        "PUT",
        `/designs/${designId}/draft`,
        csrf,
        withDeep({ template: "<p>x</p>", style: "", parameters: [], sampleParams: "DEEP" }, depth),
      );
    expect((await draftWith(63)).status).toBe(200);
    expect((await draftWith(64)).status).toBe(422);
  });

  it("a path segment whose percent-escapes do not decode: the auth server's 404 body, the site's 404 page", async () => {
    for (const bad of ["%E0%A4%A", "%ED%A0%80", "%zz"]) {
      const thumbnail = await fetch(`${authOrigin(stack)}/public/templates/${bad}/thumbnail`);
      expect(thumbnail.status, bad).toBe(404);
      expect(((await thumbnail.json()) as { code: string }).code).toBe("NOT_FOUND");
      const interaction = await fetch(`${authOrigin(stack)}/interaction/${bad}`);
      expect(interaction.status, bad).toBe(404);
      for (const path of [`/designs/${bad}/versions`, `/templates/${bad}/thumbnail`, `/file/${bad}/x`]) {
        const page = await asAdmin(path);
        expect(page.status, path).toBe(404);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      }
    }
  });
});

describe("the history page shows only the site's own messages", () => {
  it("says a shared version is in the gallery for a version of the design, and nothing for words a link brings", async () => {
    const designId = await blankDesign("Flash");
    const shared = await pageOf(`/designs/${designId}/versions?shared=1`);
    expect(shared).toContain('id="flash"');
    expect(shared).toContain("Version 1 is in the template gallery.");
    const forged = "1. Your account is locked: call +1 555 0100 to unlock it";
    for (const value of [forged, "2", "0", "<b>1</b>", "１"]) {
      const page = await pageOf(`/designs/${designId}/versions?shared=${encodeURIComponent(value)}`);
      expect(page, value).not.toContain('id="flash"');
      expect(page).not.toContain("Your account is locked");
    }
  });
});
