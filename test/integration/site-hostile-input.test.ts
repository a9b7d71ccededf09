import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDataDir, type RunningStack, startStack } from "../helpers/local-stack.ts";
import { csrfOf } from "../helpers/site-direct.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";

/**
 * Input that must be refused or bounded, not worked on until a time-out or a 500 (issue 37): the
 * history's diff of two huge versions. Over HTTP against `npm start`, as the seeded ADMIN who logs
 * in with the real form.
 */
let stack: RunningStack;
let origin: string;
let cookie = "";
let wsA: string;

const asAdmin = (path: string, init: RequestInit = {}) =>
  fetch(`${origin}${path}`, { redirect: "manual", ...init, headers: { cookie, ...(init.headers ?? {}) } });
const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});
const pageOf = async (path: string) => (await asAdmin(path)).text();
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

beforeAll(async () => {
  stack = await startStack();
  useStackEmulators(stack.dataDir);
  origin = new URL(stack.localJson.siteUrl).origin;
  wsA = stack.localJson.workspaces[0]!.id;
  const admin = stack.localJson.users.find((u) => u.email === "demo@platen.local")!;
  const login = await fetch(`${origin}/login`, {
    ...form({ email: admin.email, password: admin.password, return_to: "/designs" }),
    redirect: "manual",
  });
  cookie = (login.headers.getSetCookie() ?? []).map((c) => c.split(";")[0]).join("; ");
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

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
