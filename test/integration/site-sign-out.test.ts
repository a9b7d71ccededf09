import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { makeUser, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant } from "../helpers/sync-fixtures.ts";

/**
 * Signing out of the site is a form like any other: the page shell's sign-out button carries a CSRF token
 * bound to the session, and a sign-out POST without a valid one is refused (the session stays), so a page
 * of another site cannot sign a visitor out even where the browser sends no Origin or Referer.
 */

let stack: SharedStack;
let user: { email: string; password: string };
const origin = () => `http://127.0.0.1:${stack.port}`;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  const tenant = await createTenant(stack, "sign-out");
  user = await makeUser({ [tenant.workspaceId]: "admin" });
});

afterAll(() => stack?.release());

async function login(): Promise<string> {
  const res = await fetch(`${origin()}/login?return_to=%2Foutput-history`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: user.email, password: user.password }),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  return res.headers.getSetCookie()[0]!.split(";")[0]!;
}

const history = (cookie: string) => fetch(`${origin()}/output-history`, { headers: { cookie }, redirect: "manual" });
const signOut = (cookie: string, form: Record<string, string>) =>
  fetch(`${origin()}/logout`, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
    redirect: "manual",
  });

/** The sign-out form of a page and its hidden token. */
function signOutForm(page: string): { form: string; token: string } {
  const form = /<form[^>]*action="\/logout"[^>]*>[\s\S]*?<\/form>/.exec(page)?.[0] ?? "";
  const token = /name="logout_csrf" value="([^"]+)"/.exec(form)?.[1] ?? "";
  return { form, token };
}

describe("sign-out CSRF", () => {
  it("the page shell's sign-out form carries a token", async () => {
    const cookie = await login();
    const { form, token } = signOutForm(await (await history(cookie)).text());
    expect(form).toContain('method="post"');
    expect(token).toMatch(/^\d+\.[\w-]{43}$/);
  });

  it("refuses a sign-out without a token, with a wrong one, or with another session's: the session stays", async () => {
    const cookie = await login();
    const other = await login();
    const { token: othersToken } = signOutForm(await (await history(other)).text());
    const forms: Record<string, string>[] = [
      {},
      { logout_csrf: "" },
      { logout_csrf: "123.abc" },
      { logout_csrf: othersToken },
    ];
    for (const form of forms) {
      const res = await signOut(cookie, form);
      expect(res.status, JSON.stringify(form)).toBe(403);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect((await history(cookie)).status).toBe(200);
    }
  });

  it("signs out with the token of its own page", async () => {
    const cookie = await login();
    const { token } = signOutForm(await (await history(cookie)).text());
    const res = await signOut(cookie, { logout_csrf: token });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie()[0]).toMatch(/^platen_session=;.*Max-Age=0/);
    expect((await history(cookie)).status).toBe(303);
  });
});
