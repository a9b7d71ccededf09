import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { api, type RunningStack, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { directSite, FakeIdentity } from "../helpers/site-direct.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

/**
 * The signed-in home page's dashboard over HTTP against `npm start` (an ADMIN logs in with the real
 * form): this month's pages against the plan, the latest designs and documents, the 90-day key
 * warning (the service clock moved by the test hook); members of other workspaces in-process with
 * the identity faked. On the worker's shared stack, in two workspaces of this file's own shaped like
 * the seed's (named as the seed names them: the pages show the names).
 */
let stack: SharedStack;
let origin: string;
let wsA: string;
let demo: RunningStack["localJson"]["workspaces"][number];
let admin: Awaited<ReturnType<typeof makeUser>>;
const identity = new FakeIdentity().addUser("reader", "reader@a.example").addUser("outsider", "o@b.example");
const site = directSite(identity);

async function logIn(): Promise<string> {
  const login = await fetch(`${origin}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: admin.email, password: admin.password, return_to: "/" }).toString(),
    redirect: "manual",
  });
  return (login.headers.getSetCookie() ?? []).map((c) => c.split(";")[0]).join("; ");
}

const home = async (cookie: string) => (await fetch(`${origin}/`, { headers: { cookie } })).text();

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  origin = new URL(stack.localJson.siteUrl).origin;
  demo = await createSeededLike(stack, "Demo");
  const second = await createSeededLike(stack, "Second", "free");
  wsA = demo.id;
  admin = await makeUser({ [wsA]: "admin" });
  identity.grant(wsA, "reader", "read").grant(second.id, "outsider", "admin");
});

afterAll(async () => {
  await stack?.release();
});

describe("the home page", () => {
  it("is a title and a sentence for anonymous visitors", async () => {
    const page = await site("GET", "/");
    expect(page.status).toBe(200);
    expect(page.text).toContain("Generated documents, their history");
    expect(page.text).not.toContain('id="usage"');
  });

  it("shows a member this month's pages against the plan, the latest designs and the latest documents", async () => {
    const ws = demo;
    const res = await api(stack, ws.appKey)("/file/sync/single?response=json", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ designId: ws.designs[0]!.id, version: 1, content: { fileName: "dash", params: {} } }),
    });
    expect(res.status).toBe(200);
    const { requestId } = (await res.json()) as { requestId: string };
    await settled(stack);
    const text = await home(await logIn());
    const month = new Date().toISOString().slice(0, 7);
    expect(text).toContain("Workspace Demo");
    expect(text).toMatch(
      new RegExp(`<p id="usage-line">[1-9]\\d* of [\\d,]+ pages in ${month} \\(plan standard\\)\\.</p>`),
    );
    expect(text).toMatch(/<meter id="usage-meter" min="0" max="\d+" value="[1-9]\d*"/);
    // The latest designs, each with its thumbnail (every sample is published: more than the dashboard lists).
    const shown = ws.designs.filter((design) => text.includes(`href="/designs/${design.id}"`));
    expect(shown.length).toBeGreaterThanOrEqual(3);
    for (const design of shown) expect(text).toContain(`src="/designs/${design.id}/thumbnail?version=1"`);
    expect(text).toContain(`href="/output-history/${requestId}"`);
    expect(text).not.toContain('id="key-warning"');
  });

  it("shows a READ member the dashboard too, and never another workspace's", async () => {
    const reader = await site("GET", "/", { cookie: identity.cookie("reader") });
    expect(reader.status).toBe(200);
    expect(reader.text).toContain('id="usage"');
    expect(reader.text).toContain("Workspace Demo");
    const outsider = await site("GET", `/?workspace=${wsA}`, { cookie: identity.cookie("outsider") });
    expect(outsider.status).toBe(200);
    expect(outsider.text).not.toContain("Workspace Demo");
    expect(outsider.text).toContain("Workspace Second");
  });

  it("warns when the application key is 90 days old, linking to the settings page", async () => {
    await fetch(`http://127.0.0.1:${stack.port}/__local/clock`, {
      method: "POST",
      body: JSON.stringify({ offsetMs: 91 * 86_400_000 }),
    });
    const text = await home(await logIn());
    expect(text).toMatch(/id="key-warning">The application key was last rotated 9\d days ago/);
    expect(text).toContain(`href="/settings?workspace=${wsA}"`);
  });
});
