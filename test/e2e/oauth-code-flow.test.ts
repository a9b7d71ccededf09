import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { systemClock } from "#shared/clock.ts";
import { createOAuthClient } from "#shared/identity/oauth-clients.ts";
import { api } from "../helpers/local-stack.ts";
import { authOrigin, pkce, tokenRequest } from "../helpers/oauth-http.ts";
import { inspectPdf } from "../helpers/pdf-inspect.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { createSeededLike, sampleParams } from "../helpers/sync-fixtures.ts";

let stack: SharedStack;
let browser: Browser;

beforeAll(async () => {
  stack = await sharedStack();
  // The project's own Chromium, without the renderer's network lockdown (this page must reach the stack).
  browser = await puppeteer.launch({
    executablePath: await resolveExecutablePath(),
    args: chromium.args,
    headless: "shell",
  });
});
afterAll(async () => {
  await browser?.close();
  await stack?.release();
});

it("authorization code + PKCE in a real browser: login, consent with a workspace choice, token, PDF, refresh, replay refused", async () => {
  // Workspaces and a public client of this file's own, as the seed makes them.
  const demo = await createSeededLike(stack, "Code flow A");
  const second = await createSeededLike(stack, "Code flow B");
  const user = await makeUser({ [demo.id]: "read", [second.id]: "admin" });
  const { client } = await createOAuthClient(
    {
      workspaceId: demo.id,
      name: "Local client",
      isPublic: true,
      redirectUris: [stack.localJson.oauthClients[0]!.redirectUris[0]!],
    },
    systemClock,
  );
  const redirectUri = client.redirectUris[0]!;
  const { verifier, challenge } = pkce();
  const state = "state-1234";
  const query = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: "openid profile pdf:generate",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });

  const page = await browser.newPage();
  // Nothing listens on the client's redirect URI: the browser's arrival there is the result.
  await page.setRequestInterception(true);
  let arrived: URL | undefined;
  page.on("request", (req) => {
    if (req.url().startsWith(redirectUri)) {
      arrived = new URL(req.url());
      void req.respond({ status: 200, contentType: "text/plain", body: "callback reached" });
    } else void req.continue();
  });

  await page.goto(`${authOrigin(stack)}/oauth/authorize?${query}`);
  expect(await page.$eval("form", (f) => f.getAttribute("method"))).toBe("post");
  await page.type('input[name="email"]', user.email);
  await page.type('input[name="password"]', user.password);
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);

  // Consent: the client's name, the requested scopes, only the user's workspaces to choose from.
  const consent = await page.content();
  expect(consent).toContain("Local client");
  expect(consent).toContain("pdf:generate");
  const offered = await page.$$eval('select[name="workspaceId"] option', (os) =>
    os.map((o) => (o as HTMLOptionElement).value),
  );
  expect(offered.sort()).toEqual([demo.id, second.id].sort());
  await page.select('select[name="workspaceId"]', second.id);
  await Promise.all([page.waitForNavigation(), page.click('button[name="decision"][value="allow"]')]);
  await page.close();

  expect(arrived?.searchParams.get("state")).toBe(state);
  const code = arrived?.searchParams.get("code");
  expect(code).toBeTruthy();

  const exchanged = await tokenRequest(stack, {
    grant_type: "authorization_code",
    code: code!,
    redirect_uri: redirectUri,
    client_id: client.clientId,
    code_verifier: verifier,
  });
  expect(exchanged.status).toBe(200);
  expect(exchanged.body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
  const accessToken = String(exchanged.body.access_token);

  // A generation with the Bearer token renders a PDF in the workspace chosen at consent.
  const design = second.designs.find((d) => d.label.includes("Shipping"))!;
  const res = await api(stack)("/file/sync/single", {
    method: "POST",
    headers: { Authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      designId: design.id,
      version: 1,
      content: { fileName: "label", params: sampleParams("shipping-label") },
    }),
  });
  expect(res.status).toBe(200);
  const pdf = new Uint8Array(await res.arrayBuffer());
  expect((await inspectPdf(pdf)).pageCount).toBe(1);

  // Refresh rotates; presenting the used refresh token again is invalid_grant and revokes the family.
  const refresh = (token: string) =>
    tokenRequest(stack, { grant_type: "refresh_token", refresh_token: token, client_id: client.clientId });
  const refreshed = await refresh(String(exchanged.body.refresh_token));
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.refresh_token).not.toBe(exchanged.body.refresh_token);
  const replayed = await refresh(String(exchanged.body.refresh_token));
  expect([replayed.status, replayed.body.error]).toEqual([400, "invalid_grant"]);
  expect((await refresh(String(refreshed.body.refresh_token))).body.error).toBe("invalid_grant");
  expect(
    (await api(stack)("/file/designs", { headers: { Authorization: `Bearer ${refreshed.body.access_token}` } })).status,
  ).toBe(401);
});
