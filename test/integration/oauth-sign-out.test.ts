import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { makePublicClient, REDIRECT_URI, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { OAuthBrowser, type Screen } from "../helpers/oauth-browser.ts";
import { tokenRequest } from "../helpers/oauth-http.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant } from "../helpers/sync-fixtures.ts";

/**
 * The provider's own login (its session cookie lives 14 days) ends with the site's sign-out, so the next
 * person at a shared computer cannot authorize a client as the user who left; `prompt=login` and `max_age`
 * ask for the password even with a site session, and the ID token's `auth_time` is when the password was
 * really given (shared/identity/README.md#sessions-and-login).
 */

let stack: SharedStack;
let client: { clientId: string; redirectUri: string };
let workspaceId: string;
let user: { email: string; password: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  const tenant = await createTenant(stack, "oauth-sign-out");
  workspaceId = tenant.workspaceId;
  user = await makeUser({ [workspaceId]: "admin" });
  client = { clientId: await makePublicClient(workspaceId, "Shared computer"), redirectUri: REDIRECT_URI };
});

afterAll(() => stack?.release());

const signIn = (browser: OAuthBrowser, screen: Screen) =>
  browser.submit(screen, { email: user.email, password: user.password });
const allow = (browser: OAuthBrowser, screen: Screen) => browser.submit(screen, { workspaceId, decision: "allow" });

async function idTokenClaims(browser: OAuthBrowser, screen: Screen) {
  if (screen.kind !== "redirect") throw new Error(`expected the redirect, got the ${screen.kind} screen`);
  const code = screen.params.get("code");
  expect(code, String(screen.params)).toBeTruthy();
  const res = await tokenRequest(stack, {
    grant_type: "authorization_code",
    code: code!,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: browser.verifier,
  });
  expect(res.status).toBe(200);
  return claimsOf(String(res.body.id_token));
}

describe("signing out of the site ends the OAuth login", () => {
  it("after sign-out, authorizing again shows the login screen instead of the consent", async () => {
    const browser = new OAuthBrowser(stack, client);
    const login = await browser.authorize();
    expect(login.kind).toBe("login");
    const consent = await signIn(browser, login);
    expect(consent.kind).toBe("consent");
    expect((await allow(browser, consent)).kind).toBe("redirect");
    // Still signed in: the next authorization goes straight to the consent.
    expect((await browser.authorize()).kind).toBe("consent");

    await browser.siteSignOut();
    expect((await browser.authorize()).kind).toBe("login");
  });

  it("a password given after the sign-out opens it again", async () => {
    const browser = new OAuthBrowser(stack, client);
    await allow(browser, await signIn(browser, await browser.authorize()));
    await browser.siteSignOut();
    const consent = await signIn(browser, await browser.authorize());
    expect(consent.kind).toBe("consent");
    expect((await allow(browser, consent)).kind).toBe("redirect");
  });
});

describe("prompt=login, max_age and auth_time", () => {
  it("prompt=login shows the login screen even when signed in on the site and the provider", async () => {
    const browser = new OAuthBrowser(stack, client);
    await allow(browser, await signIn(browser, await browser.authorize()));
    expect((await browser.authorize()).kind).toBe("consent");
    expect((await browser.authorize({ prompt: "login" })).kind).toBe("login");
  });

  it("max_age=1 shows the login screen 2 s after the sign-in, and the new sign-in's time is auth_time", async () => {
    const browser = new OAuthBrowser(stack, client);
    await browser.siteLogin(user.email, user.password);
    await sleep(2_000);
    const login = await browser.authorize({ max_age: "1" });
    expect(login.kind).toBe("login");
    const before = Math.floor(Date.now() / 1000);
    const claims = await idTokenClaims(browser, await allow(browser, await signIn(browser, login)));
    expect(Number(claims.auth_time)).toBeGreaterThanOrEqual(before);
  });

  it("a site session stands for the login with its own sign-in time as auth_time", async () => {
    const browser = new OAuthBrowser(stack, client);
    const signedInFrom = Math.floor(Date.now() / 1000);
    await browser.siteLogin(user.email, user.password);
    const signedInUntil = Math.ceil(Date.now() / 1000);
    await sleep(2_500);
    const consent = await browser.authorize();
    expect(consent.kind).toBe("consent");
    const claims = await idTokenClaims(browser, await allow(browser, consent));
    expect(Number(claims.auth_time)).toBeGreaterThanOrEqual(signedInFrom);
    expect(Number(claims.auth_time)).toBeLessThanOrEqual(signedInUntil);
  });

  it("a site session older than max_age does not stand for the login", async () => {
    const browser = new OAuthBrowser(stack, client);
    await browser.siteLogin(user.email, user.password);
    await sleep(2_000);
    expect((await browser.authorize({ max_age: "1" })).kind).toBe("login");
    expect((await browser.authorize({ max_age: "600" })).kind).toBe("consent");
  });
});
