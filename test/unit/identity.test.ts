import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importJWK, jwtVerify, SignJWT } from "jose";
import { describe, expect, it, vi } from "vitest";
import { authenticate } from "#shared/auth/authenticate.ts";
import { requiredScopesOf } from "#shared/auth/route-scopes.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { clientMetadata } from "#shared/identity/client-metadata.ts";
import { deriveKeys } from "#shared/identity/keys.ts";
import { checkRedirectUri } from "#shared/identity/oauth-clients.ts";
import { hashPassword, verifyPassword } from "#shared/identity/passwords.ts";
import { parseScopes } from "#shared/identity/scopes.ts";
import { consentPage, loginPage } from "#shared/identity/screens.ts";
import { applyTokenPolicy } from "#shared/identity/token-request.ts";

const SEED_A = "a".repeat(40);
const SEED_B = "b".repeat(40);

describe("identity keys are derived from kept seeds", () => {
  it("derives the same ES256 key and cookie key from the same seed, different ones from another", () => {
    const one = deriveKeys({ seed: SEED_A });
    expect(deriveKeys({ seed: SEED_A })).toEqual(one);
    const other = deriveKeys({ seed: SEED_B });
    expect(other.signingKeys[0]!.kid).not.toBe(one.signingKeys[0]!.kid);
    expect(other.cookieKeys[0]).not.toBe(one.cookieKeys[0]);
  });

  it("signs with the current seed's key and still lists the previous seeds' keys (rotation)", async () => {
    const rotated = deriveKeys({ seed: SEED_B, previousSeeds: [SEED_A] });
    expect(rotated.signingKeys.map((k) => k.kid)).toEqual([
      deriveKeys({ seed: SEED_B }).signingKeys[0]!.kid,
      deriveKeys({ seed: SEED_A }).signingKeys[0]!.kid,
    ]);
    const jwk = rotated.signingKeys[1]!;
    const token = await new SignJWT({ x: 1 })
      .setProtectedHeader({ alg: "ES256", kid: jwk.kid })
      .sign(await importJWK(jwk, "ES256"));
    const { d: _private, ...publicJwk } = jwk;
    expect((await jwtVerify(token, await importJWK(publicJwk, "ES256"))).payload.x).toBe(1);
  });
});

describe("first-party session cookie", () => {
  const withSeeds = async (seeds: object) => {
    const file = join(mkdtempSync(join(tmpdir(), "platen-keys-")), "keys.json");
    writeFileSync(file, JSON.stringify(seeds));
    vi.stubEnv("PLATEN_IDENTITY_KEYS_FILE", file);
    vi.resetModules();
    return import("#shared/identity/session.ts");
  };

  /** The identity table as readSession sees it: users and when each last signed out. */
  const users = (signedOut: Record<string, number | undefined> = {}) => ({
    getUser: async (id: string) => (id in signedOut ? { sessionsValidAfter: signedOut[id] } : undefined),
  });

  it("is HttpOnly, SameSite=Lax, Secure unless local http, and reads back its user", async () => {
    const session = await withSeeds({ seed: SEED_A });
    const cookie = await session.createSessionCookie("user-1", { secure: true });
    expect(cookie).toMatch(/^platen_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
    expect(await session.createSessionCookie("user-1", { secure: false })).not.toContain("Secure");
    const value = cookie.split(";")[0]!;
    const known = users({ "user-1": undefined });
    expect(await session.readSession(`other=1; ${value}`, known)).toMatchObject({ userId: "user-1" });
    expect(await session.readSession(`${value.slice(0, -2)}xx`, known)).toBeUndefined();
    expect(await session.readSession(undefined, known)).toBeUndefined();
  });

  it("opens nothing for a deleted user, nor for one who signed out after it was signed", async () => {
    const session = await withSeeds({ seed: SEED_A });
    const value = (await session.createSessionCookie("user-3", { secure: false })).split(";")[0]!;
    expect(await session.readSession(value, users({}))).toBeUndefined();
    expect(await session.readSession(value, users({ "user-3": Date.now() + 1 }))).toBeUndefined();
    expect(await session.readSession(value, users({ "user-3": Date.now() - 60_000 }))).toMatchObject({
      userId: "user-3",
    });
  });

  it("survives a key rotation (old seed kept in previousSeeds) and dies with a foreign key", async () => {
    const before = (await (await withSeeds({ seed: SEED_A })).createSessionCookie("user-2", { secure: false })).split(
      ";",
    )[0]!;
    const known = users({ "user-2": undefined });
    expect(await (await withSeeds({ seed: SEED_B, previousSeeds: [SEED_A] })).readSession(before, known)).toMatchObject(
      {
        userId: "user-2",
      },
    );
    expect(await (await withSeeds({ seed: SEED_B })).readSession(before, known)).toBeUndefined();
    vi.unstubAllEnvs();
  });
});

describe("passwords", () => {
  it("hash with scrypt and a salt, verify only the right password, never a malformed hash", async () => {
    const hash = await hashPassword("correct horse");
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await hashPassword("correct horse")).not.toBe(hash);
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("wrong horse", hash)).toBe(false);
    expect(await verifyPassword("correct horse", "md5$abc")).toBe(false);
  });
});

describe("scopes and clients", () => {
  it("parses scopes (shared/identity/README.md#scopes) and names an unknown one", () => {
    expect(parseScopes("pdf:generate  openid pdf:generate")).toEqual(["pdf:generate", "openid"]);
    expect(() => parseScopes("pdf:generate admin")).toThrow(/unknown scope "admin"/);
  });

  it("requires pdf:generate for generation, status and downloads; a read scope also lists designs", () => {
    expect(requiredScopesOf("/v1/file/sync/single")).toEqual(["pdf:generate"]);
    expect(requiredScopesOf("/file/async/multiple")).toEqual(["pdf:generate"]);
    expect(requiredScopesOf("/file/download/{requestId}")).toEqual(["pdf:generate"]);
    expect(requiredScopesOf("/file/designs")).toContain("designs:read");
    expect(requiredScopesOf("/health/check")).toEqual([]);
  });

  it("accepts https redirect URIs and http only on loopback, never a fragment", () => {
    expect(checkRedirectUri("https://app.example/cb")).toBe("https://app.example/cb");
    expect(checkRedirectUri("http://127.0.0.1:8765/callback")).toBe("http://127.0.0.1:8765/callback");
    expect(() => checkRedirectUri("http://app.example/cb")).toThrow();
    expect(() => checkRedirectUri("https://app.example/cb#x")).toThrow();
    expect(() => checkRedirectUri("/relative")).toThrow();
  });

  it("maps public clients to PKCE-only code flow and confidential ones to client credentials with the hashed secret", () => {
    const base = {
      clientId: "c1",
      workspaceId: "w1",
      name: "App",
      redirectUris: ["https://a.example/cb"],
      allowedScopes: ["pdf:generate" as const],
      createdAt: "",
    };
    const pub = clientMetadata({ ...base, isPublic: true });
    expect(pub).toMatchObject({
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      workspace_id: "w1",
    });
    expect(pub).not.toHaveProperty("client_secret");
    const conf = clientMetadata({ ...base, isPublic: false, redirectUris: [], secretHash: "ab".repeat(32) });
    expect(conf).toMatchObject({
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["client_credentials"],
      response_types: [],
      client_secret: "ab".repeat(32),
    });
  });

  it("leaves token requests of other grants untouched", async () => {
    const body = "grant_type=authorization_code&code=x&code_verifier=y";
    expect(await applyTokenPolicy(body, undefined)).toEqual({ body });
  });
});

describe("screens", () => {
  it("escape what they show and offer exactly the given workspaces", () => {
    const html = consentPage("en", {
      action: "/interaction/u1/confirm",
      clientName: '<script>alert("x")</script>',
      email: "a@b.c",
      scopes: ["openid", "pdf:generate"],
      workspaces: [{ id: "w1", name: "Demo & Co", role: "admin" }],
    });
    expect(html).not.toContain("<script>");
    expect(html).toContain("&#60;script&#62;");
    expect(html).toContain(
      '<select id="workspaceId" name="workspaceId" required><option value="w1">Demo &#38; Co (admin)</option></select>',
    );
    expect(html).toContain('name="decision" value="allow"');
    expect(html).toContain('name="decision" value="deny"');
  });

  it("speak Japanese and say nothing about whether the e-mail exists", () => {
    const wrong = loginPage("ja", { action: "/interaction/u1/login", email: "x@y.z", error: "wrong" });
    expect(wrong).toContain('lang="ja"');
    expect(wrong).toContain("メールアドレスまたはパスワードが正しくありません。");
    expect(loginPage("en", { action: "/a", error: "limited" })).toContain("Too many sign-in attempts");
  });
});

describe("authenticate: which credential counts", () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()];
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return "none";
    } catch (err) {
      return isPlatenError(err) ? err.code : String(err);
    }
  };

  it("412 without credentials, 401 for an appkey beside a Bearer token or a non-Bearer Authorization alone", async () => {
    expect(await codeOf(authenticate(headers({})))).toBe("AUTH_HEADER_MISSING");
    expect(await codeOf(authenticate(headers({ appkey: `plt_${"a".repeat(40)}`, authorization: "Bearer abc" })))).toBe(
      "INVALID_CREDENTIALS",
    );
    expect(await codeOf(authenticate(headers({ authorization: "Basic dTpw" })))).toBe("INVALID_CREDENTIALS");
  });
});
