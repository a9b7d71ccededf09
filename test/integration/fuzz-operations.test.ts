import { appendFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "#shared/definitions/routes.ts";
import { API_SCOPES } from "#shared/identity/scopes.ts";
import { buildOpenApiDocument } from "#shared/openapi/document.ts";
import { signingFixtures } from "../helpers/signing-fixtures.ts";
import { designApi, jsonDesign } from "../helpers/design-fixtures.ts";
import { answerProblems, type FuzzAnswer } from "../helpers/fuzz/answer-checks.ts";
import { fuzzRuns, fuzzSeed, runsFor, seedFor } from "../helpers/fuzz/fuzz-config.ts";
import {
  buildRequest,
  describeCase,
  type FuzzCaller,
  fuzzCase,
  type FuzzTargets,
} from "../helpers/fuzz/fuzz-requests.ts";
import { type FuzzOperation, fuzzOperations } from "../helpers/fuzz/served-operations.ts";
import { Ledger, readState, stateChanges, type WorkspaceState } from "../helpers/fuzz/workspace-state.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { type RunningStack, removeDataDir, settled, startStack, UNLIMITED } from "../helpers/local-stack.ts";
import {
  makePublicClient,
  makeUser,
  sessionOf,
  userToken,
  useStackIdentityKeys,
} from "../helpers/management-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant } from "../helpers/sync-fixtures.ts";

/**
 * Bad input, at scale: every operation of the served OpenAPI document gets generated requests
 * (fast-check, seeded) — wrong types, missing and extra fields, very long text, deep nesting,
 * control characters and lone surrogates, numbers at the edges, other content types, bodies
 * that are not JSON, request heads over the gateway's limit, unknown ids and another
 * workspace's ids — from the callers the operation takes and from strangers. Every answer:
 * no 5xx, CORS, a documented status, the error body in the language asked for, nothing of the
 * implementation shown. After each operation's batch, both workspaces' pages, file records,
 * designs and webhook endpoints differ only where a successful request said so.
 * `FUZZ_RUNS`/`FUZZ_SEED` (test/helpers/fuzz/fuzz-config.ts); `npm run fuzz` is the long run.
 */

interface Workspace {
  id: string;
  appKey: string;
  invoiceId: string;
  /** Bearer token of a client-credentials client with every API scope. */
  cc: string;
  /** A code-flow token of an ADMIN user (pdf:generate: the management routes' scope). */
  admin: string;
  session: string;
  /** A design made with the design API, with a draft and a shared template. */
  design: string;
  template: string;
  endpoint: string;
  identity: string;
  requestId: string;
  fileId: string;
}

/**
 * Deletions last, so the ids the other operations aim at still exist while they run; publishing just
 * before them, since publishing the draft discards it.
 */
const rank = (op: FuzzOperation) => (op.method === "DELETE" ? 2 : op.operationId === "publishDesignVersion" ? 1 : 0);
const inOrder = (ops: FuzzOperation[]) => ops.sort((x, y) => rank(x) - rank(y));

/**
 * The operation ids, known when the tests are collected (the same builder, other URLs); the
 * cases are built from the document the stack serves, read in beforeAll.
 */
const operationIds = inOrder(
  fuzzOperations(buildOpenApiDocument(routes, { baseUrl: "http://localhost/v1", authUrl: "http://localhost" })),
).map((o) => o.operationId);

let stack: RunningStack;
let operations: FuzzOperation[];
const ws: Record<"a" | "b", Workspace> = {} as never;
const WORKSPACES = ["a", "b"] as const;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function makeWorkspace(name: string): Promise<Workspace> {
  const tenant = await createTenant(stack, name);
  const scopes = API_SCOPES.join(" ");
  const cc = await clientCredentialsToken(
    stack,
    await makeConfidentialClient(tenant.workspaceId, [...API_SCOPES] as never),
    scopes,
  );
  const user = await makeUser({ [tenant.workspaceId]: "admin" });
  const admin = await userToken(
    stack,
    await makePublicClient(tenant.workspaceId, `${name} app`),
    user,
    tenant.workspaceId,
  );
  const call = designApi(stack);
  const design = (await call("POST", "/designs", { token: cc }, jsonDesign(`${name} design`))).body.id as string;
  await call("PUT", `/designs/${design}/draft`, { token: cc }, jsonDesign(`${name} design`));
  const template = (await call("POST", "/templates", { token: cc }, { designId: design, version: 1 })).body
    .id as string;
  const endpoint = await json("POST", `/workspace/${tenant.workspaceId}/webhook-endpoints`, bearer(admin), {
    url: `https://hooks.example.com/${tenant.workspaceId}`,
  });
  // Disabled: the fuzz's successful generations should not send events to a host that does not exist.
  await json("PATCH", `/workspace/${tenant.workspaceId}/webhook-endpoints/${endpoint.id}`, bearer(admin), {
    enabled: false,
  });
  // A signing identity of the test keys (made by openssl for this run), added over the API like a customer would.
  const keys = await signingFixtures();
  const identity = await json("POST", `/workspace/${tenant.workspaceId}/signing-identities`, bearer(admin), {
    label: "fuzz-seal",
    pkcs12: keys.ec.pkcs12.toString("base64"),
    password: keys.password,
  });
  const generated = await json(
    "POST",
    "/file/sync/single?response=json",
    { appkey: tenant.appKey },
    {
      designId: tenant.invoiceId,
      version: 1,
      content: { fileName: "fixture", params: {} },
    },
  );
  return {
    id: tenant.workspaceId,
    appKey: tenant.appKey,
    invoiceId: tenant.invoiceId,
    cc,
    admin,
    session: await sessionOf(user.id),
    design,
    template,
    endpoint: String(endpoint.id),
    identity: String(identity.id),
    requestId: String(generated.requestId),
    fileId: String((generated.files as { fileId: string }[])[0]!.fileId),
  };
}

async function json(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}

beforeAll(async () => {
  stack = await startStack({
    env: {
      PLATEN_RATE_LIMITS: JSON.stringify({ ...JSON.parse(UNLIMITED), preview: 1e6 }),
      PLATEN_WEBHOOK_DELAY_SCALE: "0.01",
    },
  });
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  ws.a = await makeWorkspace("Fuzzed");
  ws.b = await makeWorkspace("Other");
  const document = await (await fetch(`${stack.baseUrl}/openapi.json`)).json();
  operations = inOrder(fuzzOperations(document));
  console.log(`fuzz: seed ${fuzzSeed()}, ${fuzzRuns()} runs per operation (FUZZ_SEED, FUZZ_RUNS)`);
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** The ids the document's examples use, by parameter name: a body repeating one gets the suite's id instead. */
function exampleIds(): Map<string, string> {
  const ids = new Map<string, string>();
  for (const op of operations) for (const [name, value] of Object.entries(op.exampleIds)) ids.set(value, name);
  return ids;
}

const RENDERING = new Set([
  "generateSyncSingle",
  "generateSyncMultiple",
  "generateAsyncSingle",
  "generateAsyncMultiple",
  "createDesign",
  "publishDesignVersion",
  "previewDesign",
]);

function idOf(w: Workspace, op: FuzzOperation, name: string): string {
  switch (name) {
    case "designId":
      // The invoice was published from its folder without a thumbnail; the design API's design has one.
      return op.family === "design" || op.operationId === "getDesignThumbnail" ? w.design : w.invoiceId;
    case "version":
      return "1";
    case "workspaceId":
      return w.id;
    case "endpointId":
      return w.endpoint;
    case "identityId":
      return w.identity;
    case "templateId":
      return w.template;
    case "requestId":
      return w.requestId;
    case "fileId":
      return w.fileId;
    case "recordId":
      // Records are keyed by their file's id; the invoice sample keeps none, so this one reads 404.
      return w.fileId;
    default:
      throw new Error(`no fuzz id for path parameter ${name}`);
  }
}

const targets: FuzzTargets = {
  callers(op) {
    const a = ws.a;
    const session = { cookie: a.session, "x-workspace-id": a.id };
    const byFamily: Record<FuzzOperation["family"], FuzzCaller[]> = {
      appkey: [
        { name: "appkey", headers: { appkey: a.appKey } },
        { name: "client credentials", headers: bearer(a.cc) },
      ],
      design: [
        { name: "client credentials", headers: bearer(a.cc) },
        { name: "ADMIN session", headers: session },
      ],
      management: [
        { name: "ADMIN token", headers: bearer(a.admin) },
        { name: "ADMIN session", headers: { cookie: a.session } },
      ],
      none: [{ name: "nobody", headers: {} }],
    };
    return byFamily[op.family];
  },
  strangers(): FuzzCaller[] {
    const b = ws.b;
    return [
      { name: "nobody", headers: {} },
      { name: "a malformed appkey", headers: { appkey: "not a key" } },
      { name: "an unknown appkey", headers: { appkey: `plt_${"Q".repeat(40)}` } },
      { name: "a garbage token", headers: bearer("eyJhbGciOiJub25lIn0.e30.") },
      { name: "Basic credentials", headers: { authorization: "Basic Zm9vOmJhcg==" } },
      { name: "the other workspace's appkey", headers: { appkey: b.appKey } },
      { name: "the other workspace's client", headers: bearer(b.cc) },
      { name: "the other workspace's ADMIN", headers: bearer(b.admin) },
      { name: "the other workspace's session", headers: { cookie: b.session, "x-workspace-id": ws.a.id } },
    ];
  },
  own: (op, name) => idOf(ws.a, op, name),
  foreign: (op, name) => idOf(ws.b, op, name),
  renders: (op) => RENDERING.has(op.operationId),
  baseline(op) {
    const ids = exampleIds();
    const swap = (v: unknown): unknown => {
      if (typeof v === "string" && ids.has(v)) return idOf(ws.a, op, ids.get(v)!);
      if (Array.isArray(v)) return v.map(swap);
      if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]));
      return v;
    };
    const body = swap(op.exampleBody) as Record<string, unknown>;
    if (body && typeof body.designId === "string" && typeof body.version === "number") body.version = 1;
    if (op.operationId.startsWith("generate")) {
      // The invoice takes any params; no webhook: the example's host does not exist.
      delete body.webhookUrl;
      const items = (body.contents ?? [body.content]) as Record<string, unknown>[];
      for (const item of items) item.params = {};
    }
    return body;
  },
};

const MAX_FUZZ_BODY_BYTES = 8 * 1024 * 1024;
const bodyBytes = (body: RequestInit["body"]) =>
  typeof body === "string" ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.length : 0;

/** Sends one case and reads the whole answer. */
async function send(url: string, init: RequestInit): Promise<FuzzAnswer> {
  const res = await fetch(url, { ...init, redirect: "manual" });
  const bytes = Buffer.from(await res.arrayBuffer());
  let parsed: unknown;
  if (/json/.test(res.headers.get("content-type") ?? "")) {
    try {
      parsed = JSON.parse(bytes.toString("utf8"));
    } catch {
      parsed = undefined;
    }
  }
  return { status: res.status, headers: res.headers, bytes, json: parsed };
}

/** Notes what a successful answer may have changed, and takes a rotated key into use. */
function record(ledger: Ledger, op: FuzzOperation, ids: Record<string, string>, answer: FuzzAnswer, async: string[]) {
  if (answer.status >= 300) return;
  ledger.successes++;
  const body = (answer.json ?? {}) as Record<string, unknown>;
  const requestId = answer.headers.get("request-id") ?? (body.requestId as string | undefined);
  if (requestId && op.operationId.startsWith("generate")) {
    ledger.requestIds.add(requestId);
    if (op.operationId.startsWith("generateAsync")) async.push(requestId);
  }
  if (ids.designId) ledger.designs.add(ids.designId);
  if (op.family === "design" && typeof body.id === "string") ledger.designs.add(body.id);
  if (typeof body.designId === "string") ledger.designs.add(body.designId);
  if (ids.endpointId) ledger.endpoints.add(ids.endpointId);
  if (op.family === "management" && typeof body.id === "string") ledger.endpoints.add(body.id);
  if (op.operationId.startsWith("setWorkspaceWebhook")) ledger.anyEndpoint = true;
  if (op.operationId === "rotateApplicationKey") {
    const rotated = WORKSPACES.find((k) => ws[k].id === ids.workspaceId);
    if (rotated) ws[rotated].appKey = String(body.applicationKey);
  }
}

/** Waits until every accepted async request has finished (its pages are then counted). */
async function finished(requestIds: string[]): Promise<void> {
  for (const id of requestIds) {
    for (let tries = 0; tries < 600; tries++) {
      const answers = await Promise.all(
        WORKSPACES.map((k) => fetch(`${stack.baseUrl}/file/status/${id}`, { headers: bearer(ws[k].cc) })),
      );
      const found = answers.find((r) => r.status === 200);
      const status = found ? ((await found.json()) as { status: string }).status : "gone";
      if (status !== "queued" && status !== "processing") break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await settled(stack);
}

async function stateOf(k: "a" | "b"): Promise<WorkspaceState> {
  const w = ws[k];
  return readState(stack, w.id, {
    designs: async () => {
      const out: Record<string, unknown>[] = [];
      for (let page = 1; ; page++) {
        const body = await json("GET", `/designs?archived=true&page=${page}`, bearer(w.cc));
        // The thumbnail's URL is signed anew on each read: compare what a request can change.
        for (const d of body.designs as Record<string, unknown>[]) out.push({ ...d, thumbnail: undefined });
        if (page >= Number(body.totalPages)) return out;
      }
    },
    endpoints: async () => (await json("GET", `/workspace/${w.id}/webhook-endpoints`, bearer(w.admin))).items as never,
  });
}

/** Cases tried and problems found per operation, printed at the end (test/README.md keeps the long run's). */
const totals: { operationId: string; cases: number; successes: number; statuses: Record<number, number> }[] = [];

afterAll(() => {
  const lines = totals.map(
    (t) =>
      `${t.operationId.padEnd(26)} ${String(t.cases).padStart(5)} cases, ${t.successes} accepted, ${JSON.stringify(t.statuses)}`,
  );
  console.log(`fuzz totals (seed ${fuzzSeed()}):\n${lines.join("\n")}`);
});

describe("every operation of the served OpenAPI document, fuzzed", () => {
  it("reads the operations from the served document (every family present)", () => {
    expect(operations.map((o) => o.operationId)).toEqual(operationIds);
    expect(new Set(operations.map((o) => o.family))).toEqual(new Set(["none", "appkey", "management", "design"]));
  });

  // One test per operation; the list comes from the document, read in beforeAll.
  const budget = (fuzzRuns() * 2_000 + 120_000) | 0;
  it.each(operationIds)(
    "%s: every answer well-formed, nothing stored by a refusal",
    async (operationId) => {
      const op = operations.find((o) => o.operationId === operationId)!;
      const runs = runsFor(targets.renders(op));
      const before = { a: await stateOf("a"), b: await stateOf("b") };
      const ledger = new Ledger();
      const accepted: string[] = [];
      const statuses: Record<number, number> = {};
      await fc.assert(
        fc.asyncProperty(fuzzCase(op, targets), async (c) => {
          const built = buildRequest(stack.baseUrl, op, c, targets);
          // A thousand copies of a long text is tens of megabytes: the gateway's 413 (over 50 MB) is not
          // what this suite is about, and the connection is closed before such a body is sent whole.
          fc.pre(bodyBytes(built.init.body) <= MAX_FUZZ_BODY_BYTES);
          const answer = await send(built.url, built.init);
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          if (process.env.FUZZ_LOG) {
            appendFileSync(
              process.env.FUZZ_LOG,
              `${answer.status} ${describeCase(op, c, built).slice(0, 300)}\n    -> ${answer.bytes.toString("utf8").slice(0, 300)}\n`,
            );
          }
          record(ledger, op, built.ids, answer, accepted);
          const problems = answerProblems(op, { acceptLanguage: c.acceptLanguage, hugeHeader: c.hugeHeader }, answer);
          if (problems.length) {
            throw new Error(
              `${op.operationId}: ${problems.join("; ")}\n  sent: ${describeCase(op, c, built)}\n  answer ${answer.status}: ${answer.bytes.toString("utf8").slice(0, 400)}`,
            );
          }
        }),
        { numRuns: runs, seed: seedFor(op.operationId), endOnFailure: !process.env.FUZZ_SHRINK },
      );
      await finished(accepted);
      const after = { a: await stateOf("a"), b: await stateOf("b") };
      totals.push({ operationId: op.operationId, cases: runs, successes: ledger.successes, statuses });
      expect([...stateChanges(before.a, after.a, ledger), ...stateChanges(before.b, after.b, ledger)]).toEqual([]);
    },
    budget,
  );
});
