import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putMembership, removeMembership } from "#shared/identity/memberships.ts";
import { deleteOAuthClient } from "#shared/identity/oauth-clients.ts";
import { clientCredentialsToken, forgeToken, makeConfidentialClient, makeUser } from "../helpers/identity-fixtures.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { codeFlowTokens, tokenRequest } from "../helpers/oauth-http.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { sampleParams } from "../helpers/sync-fixtures.ts";

let stack: RunningStack;
let demo: RunningStack["localJson"]["workspaces"][number];
let second: RunningStack["localJson"]["workspaces"][number];
let publicClient: { clientId: string; redirectUri: string };

const bearer = (token: string, extra: Record<string, string> = {}) => ({
  headers: { Authorization: `Bearer ${token}`, ...extra },
});
const codeOf = async (res: Response) => ((await res.json()) as { code: string }).code;
const generateAsync = (token: string) =>
  api(stack)("/file/async/single", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      designId: demo.designs.find((d) => d.label.includes("Shipping"))!.id,
      version: 1,
      content: { fileName: "label", params: sampleParams("shipping-label") },
    }),
  });

beforeAll(async () => {
  stack = await startStack();
  useStackEmulators(stack.dataDir);
  [demo, second] = stack.localJson.workspaces as [typeof demo, typeof second];
  const seeded = stack.localJson.oauthClients[0]!;
  publicClient = { clientId: seeded.clientId, redirectUri: seeded.redirectUris[0]! };
});
afterAll(async () => {
  await fetch(`http://127.0.0.1:${stack.port}/__local/clock`, {
    method: "POST",
    body: JSON.stringify({ offsetMs: 0 }),
  });
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

describe("authentication refusals with Bearer tokens (README.md#authentication)", () => {
  it("412 without appkey and Authorization; 401 for a token that is not one of ours", async () => {
    const none = await api(stack)("/file/designs");
    expect([none.status, await codeOf(none)]).toEqual([412, "AUTH_HEADER_MISSING"]);
    const garbage = await api(stack)("/file/designs", bearer("not-a-jwt"));
    expect([garbage.status, await codeOf(garbage)]).toEqual([401, "INVALID_CREDENTIALS"]);
    // RFC 6750 §3: a refused bearer token is told so in the challenge.
    expect(garbage.headers.get("www-authenticate")).toBe('Bearer realm="platen", error="invalid_token"');
    const { privateKey } = await generateKeyPair("ES256");
    const foreign = await new SignJWT({
      workspace_id: demo.id,
      client_id: "x",
      scope: "pdf:generate",
      grant_type: "client_credentials",
    })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "foreign" })
      .setIssuer(stack.localJson.authUrl)
      .setAudience(stack.localJson.apiBaseUrl)
      .setExpirationTime("1h")
      .sign(privateKey);
    expect((await api(stack)("/file/designs", bearer(foreign))).status).toBe(401);
  });

  it("a code-flow token works in the workspace chosen at consent and counts there", async () => {
    const user = await makeUser({ [demo.id]: "read", [second.id]: "admin" });
    const tokens = await codeFlowTokens(stack, {
      ...publicClient,
      email: user.email,
      password: user.password,
      workspaceId: second.id,
    });
    const list = await api(stack)("/file/designs", bearer(tokens.access_token));
    expect(list.status).toBe(200);
    const own = await api(stack)("/file/designs", bearer(tokens.access_token, { "x-workspace-id": second.id }));
    expect(own.status).toBe(200);
    // README.md#authentication: x-workspace-id of another workspace → 401, even one the user belongs to.
    const other = await api(stack)("/file/designs", bearer(tokens.access_token, { "x-workspace-id": demo.id }));
    expect([other.status, await codeOf(other)]).toEqual([401, "INVALID_CREDENTIALS"]);
  });

  it("a token lacking pdf:generate is 401 on generation (see shared/identity/README.md#scopes) but may list designs", async () => {
    const client = await makeConfidentialClient(demo.id, ["designs:read"]);
    const token = await clientCredentialsToken(stack, client);
    const gen = await generateAsync(token);
    expect([gen.status, await codeOf(gen)]).toEqual([401, "INVALID_CREDENTIALS"]);
    expect((await api(stack)("/file/designs", bearer(token))).status).toBe(200);
  });

  it("client credentials may generate for the client's workspace; its requests are invisible to others", async () => {
    const client = await makeConfidentialClient(demo.id);
    const token = await clientCredentialsToken(stack, client);
    const accepted = await generateAsync(token);
    expect(accepted.status).toBe(202);
    const { requestId } = (await accepted.json()) as { requestId: string };
    expect((await api(stack)(`/file/status/${requestId}`, bearer(token))).status).toBe(200);
    const otherToken = await clientCredentialsToken(stack, await makeConfidentialClient(second.id));
    const hidden = await api(stack)(`/file/status/${requestId}`, bearer(otherToken));
    expect([hidden.status, await codeOf(hidden)]).toEqual([404, "REQUEST_NOT_FOUND"]);
  });

  it("workspace-less and wrong-audience tokens are 401 even when signed with our key", async () => {
    const base = {
      client_id: stack.localJson.oauthClients[0]!.clientId,
      scope: "pdf:generate",
      grant_type: "client_credentials",
    };
    const valid = await forgeToken(stack, { ...base, workspace_id: demo.id });
    expect((await api(stack)("/file/designs", bearer(valid))).status).toBe(200);
    expect((await api(stack)("/file/designs", bearer(await forgeToken(stack, base)))).status).toBe(401);
    const wrongAudience = await forgeToken(
      stack,
      { ...base, workspace_id: demo.id },
      { audience: "https://elsewhere.example/v1" },
    );
    expect((await api(stack)("/file/designs", bearer(wrongAudience))).status).toBe(401);
  });

  it("expired tokens are 401", async () => {
    const token = await clientCredentialsToken(stack, await makeConfidentialClient(demo.id));
    expect((await api(stack)("/file/designs", bearer(token))).status).toBe(200);
    await fetch(`http://127.0.0.1:${stack.port}/__local/clock`, {
      method: "POST",
      body: JSON.stringify({ offsetMs: 3601_000 }),
    });
    try {
      const late = await api(stack)("/file/designs", bearer(token));
      expect([late.status, await codeOf(late)]).toEqual([401, "INVALID_CREDENTIALS"]);
    } finally {
      await fetch(`http://127.0.0.1:${stack.port}/__local/clock`, {
        method: "POST",
        body: JSON.stringify({ offsetMs: 0 }),
      });
    }
  });

  it("revoked tokens are 401: a replayed refresh token revokes its family, a deleted client its tokens", async () => {
    const user = await makeUser({ [demo.id]: "admin" });
    const tokens = await codeFlowTokens(stack, {
      ...publicClient,
      email: user.email,
      password: user.password,
      workspaceId: demo.id,
    });
    const refresh = {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: publicClient.clientId,
    };
    expect((await tokenRequest(stack, refresh)).status).toBe(200);
    expect((await tokenRequest(stack, refresh)).body.error).toBe("invalid_grant");
    expect((await api(stack)("/file/designs", bearer(tokens.access_token))).status).toBe(401);

    const client = await makeConfidentialClient(demo.id);
    const ccToken = await clientCredentialsToken(stack, client);
    expect((await api(stack)("/file/designs", bearer(ccToken))).status).toBe(200);
    await deleteOAuthClient(client.clientId);
    expect((await api(stack)("/file/designs", bearer(ccToken))).status).toBe(401);
  });

  it("a member removed after the token was issued gets 403 WORKSPACE_ROLE_DENIED; re-added, the token works again", async () => {
    const user = await makeUser({ [demo.id]: "read" });
    const tokens = await codeFlowTokens(stack, {
      ...publicClient,
      email: user.email,
      password: user.password,
      workspaceId: demo.id,
    });
    expect((await api(stack)("/file/designs", bearer(tokens.access_token))).status).toBe(200);
    await removeMembership(demo.id, user.id);
    const denied = await api(stack)("/file/designs", bearer(tokens.access_token));
    expect([denied.status, await codeOf(denied)]).toEqual([403, "WORKSPACE_ROLE_DENIED"]);
    await putMembership({ workspaceId: demo.id, userId: user.id, role: "read" });
    expect((await api(stack)("/file/designs", bearer(tokens.access_token))).status).toBe(200);
  });

  it("an appkey and a Bearer token on one request are refused (401), even when both are valid", async () => {
    const token = await clientCredentialsToken(stack, await makeConfidentialClient(demo.id));
    const both = await api(stack, demo.appKey)("/file/designs", bearer(token));
    expect([both.status, await codeOf(both)]).toEqual([401, "INVALID_CREDENTIALS"]);
    // Another Authorization scheme beside an appkey leaves the appkey in charge.
    const basic = await api(stack, demo.appKey)("/file/designs", { headers: { Authorization: "Basic dXNlcjpwdw==" } });
    expect(basic.status).toBe(200);
  });
});

describe("keys are kept", () => {
  it("a token issued before a restart of npm start still verifies after it", async () => {
    const client = await makeConfidentialClient(demo.id);
    const token = await clientCredentialsToken(stack, client);
    const jwksBefore = await (await fetch(`http://127.0.0.1:${stack.port}/jwks`)).json();
    // Same port: locally the issuer and audience are URLs of the gateway's origin.
    const port = stack.port;
    await stack.stop();
    stack = await startStack({ dataDir: stack.dataDir, env: { PORT: String(port) } });
    expect(await (await fetch(`http://127.0.0.1:${stack.port}/jwks`)).json()).toEqual(jwksBefore);
    const res = await api(stack)("/file/designs", bearer(token));
    expect(res.status).toBe(200);
  });
});
