import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "#shared/clock.ts";
import { LOGIN_LIMITS } from "#shared/identity/login-limit.ts";
import { createOAuthClient } from "#shared/identity/oauth-clients.ts";
import { createWorkspace } from "#shared/workspaces/workspace-store.ts";
import { clientCredentialsToken, makeConfidentialClient, makeUser } from "../helpers/identity-fixtures.ts";
import { authorizeWithForms, authOrigin, codeFlowTokens, tokenRequest } from "../helpers/oauth-http.ts";
import { fetchFromAddress } from "../helpers/loopback-source.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { adminCliArgs } from "../helpers/local-build.ts";

/**
 * The auth host (shared/identity/README.md) over HTTP, on the worker's shared stack: a workspace, a public
 * client (the seed's kind: "Local client", the seed's redirect URI), a confidential client and users of this
 * file's own. The public gallery as the seed leaves it is checked where the stack is the file's own
 * (foundation.test.ts): on a shared stack other files share templates. Its requests come from a loopback
 * address no other file uses: the login limits count per source address, and this file signs in some 35 times.
 */
let stack: SharedStack;
let restoreFetch: (() => Promise<void>) | undefined;
let demo: { id: string };
let publicClient: { clientId: string; redirectUri: string };
let confidential: Awaited<ReturnType<typeof makeConfidentialClient>>;
let user: Awaited<ReturnType<typeof makeUser>>;

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
const moveClock = (offsetMs: number) =>
  fetch(`http://127.0.0.1:${stack.port}/__local/clock`, { method: "POST", body: JSON.stringify({ offsetMs }) });

beforeAll(async () => {
  stack = await sharedStack();
  restoreFetch = await fetchFromAddress("127.0.0.31", `${authOrigin(stack)}/jwks`);
  useStackEmulators(stack.dataDir);
  demo = (await createWorkspace({ name: "OAuth server", plan: "standard" }, systemClock)).workspace;
  const { client } = await createOAuthClient(
    {
      workspaceId: demo.id,
      name: "Local client",
      isPublic: true,
      redirectUris: [stack.localJson.oauthClients[0]!.redirectUris[0]!],
    },
    systemClock,
  );
  publicClient = { clientId: client.clientId, redirectUri: client.redirectUris[0]! };
  confidential = await makeConfidentialClient(
    demo.id,
    ["pdf:generate", "designs:read", "openid", "profile"],
    ["https://app.example.test/cb"],
  );
  user = await makeUser({ [demo.id]: "admin" });
});
afterAll(async () => {
  await restoreFetch?.();
  await stack?.release();
});

describe("discovery and public endpoints (shared/identity/README.md#auth_url, shared/identity/README.md#provider-settings)", () => {
  it("publishes exactly the spec's response type, grants, PKCE method and client auth methods", async () => {
    const doc = (await (await fetch(`${authOrigin(stack)}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(doc.issuer).toBe(stack.localJson.authUrl);
    expect(doc.response_types_supported).toEqual(["code"]);
    expect(doc.grant_types_supported).toEqual(["authorization_code", "refresh_token", "client_credentials"]);
    expect(doc.code_challenge_methods_supported).toEqual(["S256"]);
    expect(doc.token_endpoint_auth_methods_supported).toEqual(["none", "client_secret_post", "client_secret_basic"]);
    expect(doc.token_endpoint).toBe(`${authOrigin(stack)}/oauth/token`);
    expect((await fetch(`${authOrigin(stack)}/jwks`)).status).toBe(200);
  });

  it("leaves other paths unknown (404)", async () => {
    // Locally {auth_url} shares its origin with {site}, whose pages (e.g. /settings) are not the auth server's.
    expect((await fetch(`${authOrigin(stack)}/oauth/no-such-endpoint`)).status).toBe(404);
    expect((await fetch(`${authOrigin(stack)}/no-such-page`)).status).toBe(404);
  });
});

describe("client credentials (see shared/identity/README.md#provider-settings)", () => {
  it("works with Basic and with client_secret_post; an omitted scope grants every allowed API scope", async () => {
    const basic = await tokenRequest(
      stack,
      { grant_type: "client_credentials" },
      { id: confidential.clientId, secret: confidential.clientSecret },
    );
    expect(basic.status).toBe(200);
    expect(basic.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "pdf:generate designs:read" });
    expect(basic.body).not.toHaveProperty("refresh_token");
    const claims = claimsOf(String(basic.body.access_token));
    expect(claims).toMatchObject({
      aud: stack.localJson.apiBaseUrl,
      workspace_id: demo.id,
      client_id: confidential.clientId,
    });
    const post = await tokenRequest(stack, {
      grant_type: "client_credentials",
      client_id: confidential.clientId,
      client_secret: confidential.clientSecret,
      scope: "designs:read",
    });
    expect(post.status).toBe(200);
    expect(post.body.scope).toBe("designs:read");
    // An empty scope is read as omitted: every allowed API scope, not a token good for nothing.
    const empty = await tokenRequest(
      stack,
      { grant_type: "client_credentials", scope: " " },
      { id: confidential.clientId, secret: confidential.clientSecret },
    );
    expect([empty.status, empty.body.scope]).toEqual([200, "pdf:generate designs:read"]);
  });

  it("invalid_scope beyond allowed_scopes, and for openid/profile", async () => {
    const creds = { id: confidential.clientId, secret: confidential.clientSecret };
    const beyond = await tokenRequest(stack, { grant_type: "client_credentials", scope: "templates:write" }, creds);
    expect([beyond.status, beyond.body.error]).toEqual([400, "invalid_scope"]);
    const oidc = await tokenRequest(stack, { grant_type: "client_credentials", scope: "openid pdf:generate" }, creds);
    expect([oidc.status, oidc.body.error]).toEqual([400, "invalid_scope"]);
  });

  it("unauthorized_client for a public client; invalid_client for a wrong secret or unknown client", async () => {
    const pub = await tokenRequest(stack, { grant_type: "client_credentials", client_id: publicClient.clientId });
    expect([pub.status, pub.body.error]).toEqual([400, "unauthorized_client"]);
    const wrong = await tokenRequest(
      stack,
      { grant_type: "client_credentials" },
      { id: confidential.clientId, secret: "wrong" },
    );
    expect([wrong.status, wrong.body.error]).toEqual([401, "invalid_client"]);
    const unknown = await tokenRequest(stack, {
      grant_type: "client_credentials",
      client_id: "nobody",
      client_secret: "x",
    });
    expect(unknown.body.error).toBe("invalid_client");
    expect(Object.keys(unknown.body).sort()).toEqual(["error", "error_description"]);
  });

  it("unsupported_grant_type for grants outside shared/identity/README.md#provider-settings", async () => {
    const res = await tokenRequest(
      stack,
      { grant_type: "password", username: user.email, password: user.password },
      { id: confidential.clientId, secret: confidential.clientSecret },
    );
    expect([res.status, res.body.error]).toEqual([400, "unsupported_grant_type"]);
  });
});

describe("authorization code errors (shared/identity/README.md#provider-settings, RFC 6749 §5.2)", () => {
  const flow = () =>
    authorizeWithForms(stack, { ...publicClient, email: user.email, password: user.password, workspaceId: demo.id });
  const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    tokenRequest(stack, {
      grant_type: "authorization_code",
      code,
      redirect_uri: publicClient.redirectUri,
      client_id: publicClient.clientId,
      code_verifier: verifier,
      ...extra,
    });

  it("redirects with code and state; a reused code is invalid_grant", async () => {
    const { params, verifier, state } = await flow();
    expect(params.get("state")).toBe(state);
    const first = await exchange(params.get("code")!, verifier);
    expect(first.status).toBe(200);
    const again = await exchange(params.get("code")!, verifier);
    expect([again.status, again.body.error]).toEqual([400, "invalid_grant"]);
  });

  it("a wrong code_verifier or redirect_uri is invalid_grant", async () => {
    const a = await flow();
    expect((await exchange(a.params.get("code")!, "x".repeat(43))).body.error).toBe("invalid_grant");
    const b = await flow();
    expect(
      (await exchange(b.params.get("code")!, b.verifier, { redirect_uri: "http://127.0.0.1:8765/other" })).body.error,
    ).toBe("invalid_grant");
  });

  it("an expired code is invalid_grant (codes live 60 s)", async () => {
    const { params, verifier } = await flow();
    await moveClock(120_000);
    try {
      expect((await exchange(params.get("code")!, verifier)).body.error).toBe("invalid_grant");
    } finally {
      await moveClock(0);
    }
  });

  it("refuses authorization without PKCE, and the user's deny is access_denied at the redirect URI", async () => {
    const query = new URLSearchParams({
      response_type: "code",
      client_id: publicClient.clientId,
      redirect_uri: publicClient.redirectUri,
      scope: "openid pdf:generate",
      state: "s1",
    });
    const res = await fetch(`${authOrigin(stack)}/oauth/authorize?${query}`, { redirect: "manual" });
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    const denied = await authorizeWithForms(stack, {
      ...publicClient,
      email: user.email,
      password: user.password,
      workspaceId: demo.id,
      decision: "deny",
    });
    expect(denied.params.get("error")).toBe("access_denied");
    expect(denied.params.get("code")).toBeNull();
  });

  it("a confidential client exchanges its code with its secret; refresh tokens rotate", async () => {
    const { params, verifier } = await authorizeWithForms(stack, {
      clientId: confidential.clientId,
      redirectUri: "https://app.example.test/cb",
      email: user.email,
      password: user.password,
      workspaceId: demo.id,
    });
    const base = {
      grant_type: "authorization_code",
      code: params.get("code")!,
      redirect_uri: "https://app.example.test/cb",
      code_verifier: verifier,
    };
    const noSecret = await tokenRequest(stack, { ...base, client_id: confidential.clientId });
    expect(noSecret.body.error).toBe("invalid_client");
    const ok = await tokenRequest(stack, base, { id: confidential.clientId, secret: confidential.clientSecret });
    expect(ok.status).toBe(200);
    const refreshed = await tokenRequest(
      stack,
      { grant_type: "refresh_token", refresh_token: String(ok.body.refresh_token) },
      { id: confidential.clientId, secret: confidential.clientSecret },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(ok.body.refresh_token);
  });

  it("a scope beyond the client's allowed_scopes is invalid_scope at the authorization endpoint", async () => {
    const limited = await makeConfidentialClient(demo.id, ["pdf:generate"], ["https://limited.example.test/cb"]);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: limited.clientId,
      redirect_uri: "https://limited.example.test/cb",
      scope: "designs:write",
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const res = await fetch(`${authOrigin(stack)}/oauth/authorize?${query}`, { redirect: "manual" });
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_scope");
  });

  it("openid with API scopes: the access token is the API's, the user is named by the ID token", async () => {
    const tokens = await codeFlowTokens(stack, {
      ...publicClient,
      email: user.email,
      password: user.password,
      workspaceId: demo.id,
      scope: "openid profile pdf:generate",
    });
    expect(tokens.scope).toBe("pdf:generate");
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: stack.localJson.apiBaseUrl, workspace_id: demo.id });
    expect(claimsOf(tokens.id_token!)).toMatchObject({ sub: user.id, aud: publicClient.clientId });
  });

  it("userinfo answers for a token asked with only openid/profile", async () => {
    const tokens = await codeFlowTokens(stack, {
      ...publicClient,
      email: user.email,
      password: user.password,
      workspaceId: demo.id,
      scope: "openid profile",
    });
    const res = await fetch(`${authOrigin(stack)}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sub: user.id, email: user.email });
  });
});

describe("cross-origin callers (infra/README.md#cross-origin-access: all origins are accepted)", () => {
  const origin = "https://spa.example";
  const allowed = (headers: Headers) => headers.get("access-control-allow-origin");

  it("client credentials, a public client's code and refresh, and userinfo answer any origin, readable by the browser", async () => {
    const creds = { id: confidential.clientId, secret: confidential.clientSecret };
    const cc = await tokenRequest(stack, { grant_type: "client_credentials" }, creds, { Origin: origin });
    expect([cc.status, allowed(cc.headers)]).toEqual([200, origin]);

    // The public client's redirect URI (the seed's) is on another origin than the caller's.
    const { params, verifier } = await authorizeWithForms(stack, {
      ...publicClient,
      email: user.email,
      password: user.password,
      workspaceId: demo.id,
      scope: "openid profile",
    });
    const code = await tokenRequest(
      stack,
      {
        grant_type: "authorization_code",
        code: params.get("code")!,
        redirect_uri: publicClient.redirectUri,
        code_verifier: verifier,
        client_id: publicClient.clientId,
      },
      undefined,
      { Origin: origin },
    );
    expect([code.status, allowed(code.headers)]).toEqual([200, origin]);
    const refreshed = await tokenRequest(
      stack,
      { grant_type: "refresh_token", refresh_token: String(code.body.refresh_token), client_id: publicClient.clientId },
      undefined,
      { Origin: origin },
    );
    expect([refreshed.status, allowed(refreshed.headers)]).toEqual([200, origin]);
    const info = await fetch(`${authOrigin(stack)}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${refreshed.body.access_token}`, Origin: origin },
    });
    expect([info.status, allowed(info.headers)]).toEqual([200, origin]);
  });

  it("the token policy's own refusals and the public gallery carry Access-Control-Allow-Origin too", async () => {
    const creds = { id: confidential.clientId, secret: confidential.clientSecret };
    const refused = await tokenRequest(stack, { grant_type: "client_credentials", scope: "openid" }, creds, {
      Origin: origin,
    });
    expect([refused.status, refused.body.error, allowed(refused.headers)]).toEqual([400, "invalid_scope", "*"]);
    const gallery = await fetch(`${authOrigin(stack)}/public/templates`, { headers: { Origin: origin } });
    expect([gallery.status, allowed(gallery.headers)]).toEqual([200, "*"]);
  });
});

describe("login form", () => {
  const loginPage = async (lang: string) => {
    const query = new URLSearchParams({
      response_type: "code",
      client_id: publicClient.clientId,
      redirect_uri: publicClient.redirectUri,
      scope: "openid pdf:generate",
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const start = await fetch(`${authOrigin(stack)}/oauth/authorize?${query}`, { redirect: "manual" });
    const cookie = start.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const url = new URL(start.headers.get("location")!, authOrigin(stack)).href;
    const page = await fetch(url, { headers: { Cookie: cookie, "Accept-Language": lang } });
    return { url, cookie, html: await page.text(), res: page };
  };
  const post = (p: { url: string; cookie: string }, email: string, password: string) =>
    fetch(`${p.url}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: p.cookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password }),
    });

  it("is server-rendered in English or Japanese by Accept-Language, with email and password inputs", async () => {
    const en = await loginPage("en-US");
    expect(en.html).toContain('<form method="post"');
    expect(en.html).toContain('name="email"');
    expect(en.html).toContain('name="password"');
    expect(en.html).toContain("Sign in");
    expect(en.res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const ja = await loginPage("ja,en;q=0.5");
    expect(ja.html).toContain("サインイン");
  });

  it("refuses a POST a browser sends from another site (403, nothing counted); the screens forbid framing and referrers", async () => {
    const page = await loginPage("en");
    expect(page.res.headers.get("x-frame-options")).toBe("DENY");
    expect(page.res.headers.get("referrer-policy")).toBe("no-referrer");
    const known = await makeUser({ [demo.id]: "read" });
    const crossSite: Record<string, string>[] = [
      { "Sec-Fetch-Site": "cross-site" },
      { Origin: "https://evil.example" },
    ];
    for (const headers of crossSite) {
      const res = await fetch(`${page.url}/login`, {
        method: "POST",
        redirect: "manual",
        headers: { Cookie: page.cookie, "Content-Type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({ email: known.email, password: known.password }),
      });
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    // The same form from this site signs in.
    expect((await post(page, known.email, known.password)).status).toBe(303);
  });

  it("rate-limits per account with 429, the same for an unknown e-mail, and never says which", async () => {
    // The limits count in fixed 15-minute windows of the service clock: the attempts start a fresh one, so a
    // window's end cannot fall between the known and the unknown e-mail's attempts.
    const windowMs = LOGIN_LIMITS.windowSeconds * 1000;
    await moveClock((Math.floor(Date.now() / windowMs) + 1) * windowMs + 1_000 - Date.now());
    try {
      const page = await loginPage("en");
      const known = await makeUser({ [demo.id]: "read" });
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await post(page, known.email, "wrong password")).status);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses[10]).toBe(429);
      const unknownStatuses: number[] = [];
      // Unknown on any stack: this file's stack is shared, and the limit counts per e-mail.
      const nobody = `nobody-${Math.random().toString(36).slice(2)}@example.test`;
      for (let i = 0; i < 11; i++) unknownStatuses.push((await post(page, nobody, "wrong password")).status);
      expect(unknownStatuses).toEqual(statuses);
      // Even the right password waits out the window.
      expect((await post(page, known.email, known.password)).status).toBe(429);
    } finally {
      await moveClock(0);
    }
  });
});

describe("admin CLI", () => {
  const repo = resolve(import.meta.dirname, "../..");
  const admin = async (...args: string[]) => {
    try {
      const out = await promisify(execFile)(process.execPath, await adminCliArgs(...args), {
        cwd: repo,
        env: { ...process.env, PLATEN_DATA_DIR: stack.dataDir },
      });
      return { code: 0, stdout: out.stdout, stderr: out.stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  // Fifteen CLI processes, each a cold Node start: minutes on a loaded machine.
  it("creates users, manages members and clients, and refuses bad input with one line and exit 1", {
    timeout: 300_000,
  }, async () => {
    const created = await admin(
      "user",
      "create",
      "--email",
      "cli@example.test",
      "--password",
      "long enough pw",
      "--name",
      "CLI",
      "--json",
    );
    expect(created.code).toBe(0);
    const cliUser = JSON.parse(created.stdout) as { id: string; email: string; name: string };
    expect(cliUser).toMatchObject({ email: "cli@example.test", name: "CLI" });
    const dup = await admin("user", "create", "--email", "CLI@example.test", "--password", "long enough pw", "--json");
    expect(dup.code).toBe(1);
    expect(dup.stderr.trim().split("\n")).toHaveLength(1);

    expect((await admin("member", "add", "--workspace", demo.id, "--user", cliUser.id, "--role", "read")).code).toBe(0);
    const badRole = await admin("member", "add", "--workspace", demo.id, "--user", cliUser.id, "--role", "owner");
    expect([badRole.code, badRole.stderr.trim().split("\n").length]).toEqual([1, 1]);
    const members = JSON.parse((await admin("member", "list", "--workspace", demo.id, "--json")).stdout) as {
      userId: string;
      role: string;
    }[];
    expect(members).toContainEqual(expect.objectContaining({ userId: cliUser.id, role: "read" }));
    expect((await admin("member", "remove", "--workspace", demo.id, "--user", cliUser.id)).code).toBe(0);

    const made = await admin(
      "oauth-client",
      "create",
      "--workspace",
      demo.id,
      "--name",
      "CLI app",
      "--confidential",
      "--redirect-uri",
      "https://a.example.test/cb",
      "--redirect-uri",
      "https://b.example.test/cb",
      "--scope",
      "pdf:generate designs:read",
      "--json",
    );
    const client = JSON.parse(made.stdout) as {
      clientId: string;
      clientSecret: string;
      redirectUris: string[];
      allowedScopes: string[];
      isPublic: boolean;
    };
    expect(client).toMatchObject({
      redirectUris: ["https://a.example.test/cb", "https://b.example.test/cb"],
      allowedScopes: ["pdf:generate", "designs:read"],
      isPublic: false,
    });
    expect(await clientCredentialsToken(stack, client)).toMatch(/^ey/);
    const listed = JSON.parse((await admin("oauth-client", "list", "--workspace", demo.id, "--json")).stdout) as Record<
      string,
      unknown
    >[];
    expect(listed.find((c) => c.clientId === client.clientId)).not.toHaveProperty("clientSecret");
    const neither = await admin("oauth-client", "create", "--workspace", demo.id, "--name", "x", "--json");
    expect([neither.code, neither.stderr.trim().split("\n").length]).toEqual([1, 1]);
    const badUri = await admin(
      "oauth-client",
      "create",
      "--workspace",
      demo.id,
      "--name",
      "x",
      "--public",
      "--redirect-uri",
      "http://evil.example/cb",
    );
    expect(badUri.code).toBe(1);
    expect((await admin("oauth-client", "delete", client.clientId)).code).toBe(0);
    expect(
      (
        await tokenRequest(
          stack,
          { grant_type: "client_credentials" },
          { id: client.clientId, secret: client.clientSecret },
        )
      ).body.error,
    ).toBe("invalid_client");
  });
});
