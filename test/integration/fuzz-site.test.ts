import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteRoutes } from "../../functions/site/handler.ts";
import { systemClock } from "#shared/clock.ts";
import { counterpartySearchForm, dynamoRecordStore, keepRecord, s3RecordPdfs } from "#shared/records/index.ts";
import { designApi, jsonDesign } from "../helpers/design-fixtures.ts";
import { fuzzSeed, hostRuns } from "../helpers/fuzz/fuzz-config.ts";
import type { HostTargets } from "../helpers/fuzz/host-cases.ts";
import { fuzzRoute } from "../helpers/fuzz/host-run.ts";
import type { FuzzJson } from "../helpers/fuzz/hostile-values.ts";
import { type HostRoute, routeName, siteFuzzRoutes } from "../helpers/fuzz/host-routes.ts";
import { fetchFromAddress } from "../helpers/loopback-source.ts";
import { makeUser, manage, sessionOf, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { generateFile, type GeneratedFile } from "../helpers/site-fixtures.ts";
import { csrfOf, FakeIdentity } from "../helpers/site-direct.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

/**
 * Bad input, at scale, on every route of the site (functions/site): its route table gives the
 * routes, so a new page is fuzzed without a change here. Each case is a generated request
 * (fast-check, seeded; test/helpers/fuzz/host-cases.ts): real ids, another workspace's and hostile
 * path segments (malformed percent-escapes, lone surrogates, oversized), query values, url-encoded
 * forms and JSON bodies mutated, bytes that are neither, the member's valid session cookie on half
 * the cases and forged or foreign ones on the rest, the CSRF token valid, missing or forged, a
 * cross-site POST now and then. Every answer: no 5xx, no stack trace or file path, and a refusal is
 * the site's HTML page or the catalogue's error body (test/helpers/fuzz/host-checks.ts).
 * `FUZZ_RUNS` cases per route (default in fuzz-config.ts), `FUZZ_SEED`; `npm run fuzz` is the long run.
 * On the worker's shared stack: two seed-shaped workspaces and their ADMINs of the file's own, its requests
 * from a loopback address no other file uses (the login limits count per source address).
 */

const routes = siteFuzzRoutes(siteRoutes(new FakeIdentity()));

/** Changes that end what later cases aim at (an archived design, a withdrawn template, the session) run last. */
const LAST = ["POST /templates/:templateId/withdraw", "POST /designs/:designId/archive", "POST /logout"];
const rank = (r: HostRoute) => LAST.indexOf(routeName(r));
const ordered = [...routes].sort((x, y) => rank(x) - rank(y));

let stack: SharedStack;
let restoreFetch: (() => Promise<void>) | undefined;
let origin: string;
let adminEmail = "";
const own: Record<string, string> = {};
const foreign: Record<string, string> = {};
let cookies: { name: string; header: string }[] = [];
let csrf = "";
let logoutCsrf = "";
let passcodeFile: GeneratedFile;
const SETTINGS_ACTIONS = ["update", "enable", "disable", "secret", "regenerate", "delete"];
let actionTurn = 0;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  origin = new URL(stack.localJson.siteUrl).origin;
  restoreFetch = await fetchFromAddress("127.0.0.33", `${origin}/`);
  const [a, b] = await Promise.all([
    createSeededLike(stack, "Fuzz site A"),
    createSeededLike(stack, "Fuzz site B", "free"),
  ]);
  const [admin, other] = await Promise.all([makeUser({ [a.id]: "admin" }), makeUser({ [b.id]: "admin" })]);
  adminEmail = admin.email;
  const reader = await makeUser({ [a.id]: "read" });
  const session = await sessionOf(admin.id);
  const sessionValue = session.slice(session.indexOf("=") + 1);
  cookies = [
    { name: "the member's session", header: session },
    { name: "another workspace's ADMIN", header: await sessionOf(other.id) },
    { name: "a READ member", header: await sessionOf(reader.id) },
    {
      name: "a session with a changed signature",
      header: `${session.slice(0, -2)}${session.endsWith("A") ? "BB" : "AA"}`,
    },
    { name: "a session whose payload is swapped", header: `platen_session=${swapPayload(sessionValue)}` },
    { name: "an unsigned session", header: "platen_session=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." },
    { name: "garbage", header: "platen_session=garbage; platen_lang=%E0%A4%A" },
    { name: "malformed cookies", header: `x=%ED%A0%80; =; ;;; platen_lang=ja%00; ${session}; platen_session=%zz` },
    { name: "an oversized cookie", header: `platen_session=${"a".repeat(8_000)}` },
    { name: "no cookie", header: "" },
  ];
  const call = designApi(stack);
  const caller = { cookie: session, workspace: a.id };
  const design = (await call("POST", "/designs", caller, jsonDesign("Fuzzed design"))).body.id as string;
  await call("PUT", `/designs/${design}/draft`, caller, jsonDesign("Fuzzed design"));
  const template = (await call("POST", "/templates", caller, { designId: design, version: 1 })).body.id as string;
  const endpoint = await manage(stack)(
    "POST",
    `/workspace/${a.id}/webhook-endpoints`,
    { cookie: session },
    {
      url: "https://hooks.example.com/fuzz",
    },
  );
  await manage(stack)(
    "PATCH",
    `/workspace/${a.id}/webhook-endpoints/${endpoint.body.id}`,
    { cookie: session },
    {
      enabled: false,
    },
  );
  passcodeFile = await generateFile(stack, a, { fileName: "fuzzed", shareType: "03", passcodeEnabled: true });
  const hidden = await generateFile(stack, b, { fileName: "hidden", shareType: "01" });
  const [ownRecord, foreignRecord] = await Promise.all([keepFuzzRecord(a.id), keepFuzzRecord(b.id)]);
  const editor = await (await fetch(`${origin}/designs/${design}`, { headers: { cookie: session } })).text();
  csrf = csrfOf(editor);
  logoutCsrf = /name="logout_csrf" value="([^"]+)"/.exec(editor)?.[1] ?? "";
  const script = /src="\/assets\/js\/([^"]+)"/.exec(editor)?.[1] ?? "editor.js";
  Object.assign(own, {
    requestId: passcodeFile.requestId,
    fileId: passcodeFile.fileId,
    page: "1",
    workspaceId: a.id,
    endpointId: String(endpoint.body.id),
    file: script,
    designId: design,
    version: "1",
    templateId: template,
    recordId: ownRecord,
  });
  Object.assign(foreign, {
    requestId: hidden.requestId,
    fileId: hidden.fileId,
    workspaceId: b.id,
    designId: b.designs[0]!.id,
    page: "999",
    version: "99",
    recordId: foreignRecord,
  });
  if (!csrf || !logoutCsrf) throw new Error("the editor page carries no CSRF tokens");
  console.log(`fuzz-site: seed ${fuzzSeed()}, ${hostRuns()} runs per route (FUZZ_SEED, FUZZ_RUNS)`);
});

afterAll(async () => {
  await restoreFetch?.();
  await stack?.release();
});

/** A kept record of `workspaceId` as generation keeps one (the records page's rows and PDF); its id. */
async function keepFuzzRecord(workspaceId: string): Promise<string> {
  const deps = { store: dynamoRecordStore(), pdfs: s3RecordPdfs(), clock: systemClock };
  const file = { workspaceId, designId: "d", version: 1, requestId: "r", fileId: `fuzz-${workspaceId}` };
  const fields = {
    type: "invoice" as const,
    date: "2026-11-02",
    amount: 12_000,
    currency: "JPY",
    counterparty: "株式会社ファズ",
    counterpartySearch: counterpartySearchForm("株式会社ファズ"),
    number: "INV-FUZZ",
  };
  return (await keepRecord(deps, { ...file, fileName: "fuzzed" }, fields, Buffer.from("%PDF-1.7 fuzz"))).recordId;
}

/** A JWT-shaped value with its payload replaced (the signature no longer matches). */
function swapPayload(value: string): string {
  const [head, , sig] = value.split(".");
  const payload = Buffer.from(JSON.stringify({ sub: "someone-else", exp: 4_102_444_800 })).toString("base64url");
  return `${head}.${payload}.${sig}`;
}

const EDITOR_FIELDS = {
  template: "<h1>{{ title }}</h1>",
  style: "h1 { color: #123456; }",
  parameters: '[{"name":"title","type":"text","label":"Title"}]',
  sampleParams: '{"title":"Hello"}',
  pageSize: "A4",
  orientation: "portrait",
  marginTop: "10mm",
  marginRight: "10mm",
  marginBottom: "10mm",
  marginLeft: "10mm",
};

/** Form fields each route reads (functions/site/pages), with values it would accept. */
function formFields(route: HostRoute): Record<string, string> {
  const p = route.path;
  if (p === "/login") return { email: adminEmail, password: "wrong password", return_to: "/designs" };
  if (p === "/logout") return { logout_csrf: logoutCsrf };
  if (p === "/file/:requestId/:fileId") return { passcode: passcodeFile.passcode ?? "" };
  if (p.endsWith("/invitations")) return { email: "guest@example.com", action: "add" };
  if (p.startsWith("/settings/"))
    return {
      url: "https://hooks.example.com/x",
      enabled: "false",
      designFilterType: "selected",
      otherDesignIds: own.designId!,
    };
  if (p === "/designs")
    return { workspace: own.workspaceId!, kind: "blank", label: "Fuzz", templateId: own.templateId! };
  if (p.endsWith("/draft")) return EDITOR_FIELDS;
  if (p.endsWith("/publish")) return { note: "fuzz", expectedLatestVersion: "1" };
  if (p.endsWith("/share")) return { version: "1", description: "fuzz", tags: "a, b" };
  if (p.endsWith("/use")) return { workspace: own.workspaceId! };
  return {};
}

/** The JSON body of the editor's script calls. */
function jsonBody(route: HostRoute): Record<string, FuzzJson> | undefined {
  if (/\/(draft|preview)$/.test(route.path) && route.method !== "GET")
    return {
      template: EDITOR_FIELDS.template,
      style: EDITOR_FIELDS.style,
      parameters: [{ name: "title", type: "text", label: "Title" }],
      sampleParams: { title: "Hello" },
      page: { size: "A4", orientation: "portrait" },
    };
  if (route.path.endsWith("/publish")) return { note: "fuzz", expectedLatestVersion: 1 };
  return undefined;
}

/** Query parameters the pages read (functions/site), with values they take; `lang` left out (it redirects). */
const QUERY = { workspace: "", page: "2", pages: "6", q: "invoice", tag: "a", version: "1", from: "1", to: "2" };

/** The records page's filters (shared/records/README.md#the-site-page), each one the form would send. */
const RECORD_QUERY = {
  type: "invoice",
  dateFrom: "2026-11-01",
  dateTo: "2026-11-30",
  amountMin: "1000",
  amountMax: "50000",
  currency: "JPY",
  counterparty: "ﾌｧｽﾞ",
  number: "INV-FUZZ",
};

const targets: HostTargets = {
  own(_route, name) {
    if (name === "action") return SETTINGS_ACTIONS[actionTurn++ % SETTINGS_ACTIONS.length];
    return own[name];
  },
  foreign: (_route, name) => foreign[name],
  cookies: () => cookies,
  csrf: () => csrf,
  formFields,
  jsonBody,
  queryFields: (route) => ({
    ...QUERY,
    ...(route.path.includes("/records") && RECORD_QUERY),
    workspace: own.workspaceId!,
    return_to: "/designs",
    after: "x",
    shared: "1",
  }),
};

const totals: string[] = [];
afterAll(() => console.log(`fuzz-site totals (seed ${fuzzSeed()}):\n${totals.join("\n")}`));

describe("what the site fuzz found, fixed at its cause", () => {
  it("a query or header named constructor or __proto__ reaches the page (the local gateway answered 502)", async () => {
    for (const path of ["/?constructor=1", "/templates?__proto__=x&q=a", "/v1/health/check?constructor=1"]) {
      const res = await fetch(`${origin}${path}`, { headers: { constructor: "x" } });
      expect(res.status, path).toBe(200);
    }
  });

  it("a refusal a page lets through (the designs list's ?page=abc, 400) is a page with its status, not the 500 page", async () => {
    for (const lang of ["en", "ja"]) {
      const res = await fetch(`${origin}/designs?page=abc`, {
        headers: { cookie: cookies[0]!.header, "accept-language": lang },
      });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toMatch(/^<!doctype html>/i);
      expect(text).toContain(`${lang === "ja" ? "/ja" : ""}/docs/errors#validation_failed`);
      expect(text).toContain(lang === "ja" ? "1 以上の整数である必要があります" : "must be an integer");
    }
  });

  it("a workspace id too long to be a key is no workspace (the settings and create forms answered 500)", async () => {
    const long = "a".repeat(6_000);
    const post = (path: string, body: string) =>
      fetch(`${origin}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: cookies[0]!.header, "content-type": "application/x-www-form-urlencoded" },
        body,
      });
    const rotate = await post(`/settings/${long}/key-rotate`, `csrf=${csrf}`);
    expect(rotate.status).toBe(404);
    const create = await post("/designs", `csrf=${csrf}&kind=blank&label=x&workspace=${"x".repeat(70_000)}`);
    expect(create.status).toBeLessThan(500);
    expect(create.status).toBeGreaterThanOrEqual(400);
  });

  it("a record id too long to be a key is no record (the records PDF answered 500)", async () => {
    const res = await fetch(`${origin}/records/${"a".repeat(1_100)}/pdf?workspace=${own.workspaceId}`, {
      headers: { cookie: cookies[0]!.header },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("an unknown script name is the site's 404 page, not a bare text answer", async () => {
    const res = await fetch(`${origin}/assets/js/unknown.js`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/^<!doctype html>[\s\S]*<\/html>\s*$/i);
  });
});

describe("every route of the site, fuzzed", () => {
  it("takes its routes from the site's route table (pages, forms, studio JSON, file view, passcodes)", () => {
    const names = routes.map(routeName);
    for (const expected of [
      "GET /",
      "POST /login",
      "POST /file/:requestId/:fileId",
      "PUT /designs/:designId/draft",
      "POST /designs/:designId/preview",
      "GET /templates/:templateId/thumbnail",
      "GET /ja/records",
      "GET /records/export",
      "GET /records/:recordId/pdf",
    ])
      expect(names).toContain(expected);
  });

  it.each(ordered.map(routeName))(
    "%s: no 5xx, no stack trace, every refusal an error page or error body",
    async (name) => {
      const route = ordered.find((r) => routeName(r) === name)!;
      const { failure, seed, statuses } = await fuzzRoute(origin, route, targets);
      expect(failure, `seed ${seed}`).toBe("");
      totals.push(`${name.padEnd(58)} ${JSON.stringify(statuses)}`);
    },
    hostRuns() * 3_000 + 120_000,
  );
});
