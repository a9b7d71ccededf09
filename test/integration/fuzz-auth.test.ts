import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fuzzSeed, hostRuns } from "../helpers/fuzz/fuzz-config.ts";
import type { HostTargets } from "../helpers/fuzz/host-cases.ts";
import { authFuzzRoutes, type HostRoute, routeName } from "../helpers/fuzz/host-routes.ts";
import { fuzzRoute } from "../helpers/fuzz/host-run.ts";
import { systemClock } from "#shared/clock.ts";
import { createOAuthClient } from "#shared/identity/oauth-clients.ts";
import { createWorkspace } from "#shared/workspaces/workspace-store.ts";
import { makeConfidentialClient, makeUser } from "../helpers/identity-fixtures.ts";
import { fetchFromAddress } from "../helpers/loopback-source.ts";
import { sessionOf, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { authOrigin, pkce } from "../helpers/oauth-http.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";

/**
 * Bad input, at scale, on every route of the auth host (`{auth_url}`, functions/auth): oidc-provider's
 * routes (`authRoutes`), the login and consent screens (`/interaction/*`) and the public gallery
 * (`/public/templates*`), listed from the prefixes the gateway sends there (test/helpers/fuzz/host-routes.ts).
 * The screens get a real interaction started for each case, with its cookies on most cases and a site
 * session on half; the rest of each case is test/helpers/fuzz/host-cases.ts's. Every answer: no 5xx, no
 * stack trace or file path, and a refusal is an HTML page, the catalogue's error body (the gallery) or
 * RFC 6749's `{error, error_description}` (the token, userinfo and revocation endpoints).
 * On the worker's shared stack: two workspaces, their ADMINs, a public client (the seed's kind) and a confidential
 * one of the file's own; its requests come from a loopback address no other file uses, since the login limits
 * count per source address and the fuzz signs in wrongly many times.
 */

const routes = authFuzzRoutes();

let stack: SharedStack;
let restoreFetch: (() => Promise<void>) | undefined;
let origin: string;
let memberEmail = "";
let clientId = "";
let redirectUri = "";
let confidential: { clientId: string; clientSecret: string };
let templateId = "";
let workspaceId = "";
let session = "";
let otherSession = "";
/** The interaction of the current case: its uid and the cookies the provider set for it. */
let interaction = { uid: "", cookies: "" };

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  origin = authOrigin(stack);
  restoreFetch = await fetchFromAddress("127.0.0.32", `${origin}/jwks`);
  const a = (await createWorkspace({ name: "Fuzz auth A", plan: "standard" }, systemClock)).workspace;
  const b = (await createWorkspace({ name: "Fuzz auth B", plan: "free" }, systemClock)).workspace;
  workspaceId = a.id;
  const { client } = await createOAuthClient(
    {
      workspaceId: a.id,
      name: "Local client",
      isPublic: true,
      redirectUris: [stack.localJson.oauthClients[0]!.redirectUris[0]!],
    },
    systemClock,
  );
  clientId = client.clientId;
  redirectUri = client.redirectUris[0]!;
  confidential = await makeConfidentialClient(a.id);
  const member = await makeUser({ [a.id]: "admin" });
  memberEmail = member.email;
  session = await sessionOf(member.id);
  otherSession = await sessionOf((await makeUser({ [b.id]: "admin" })).id);
  const gallery = (await (await fetch(`${origin}/public/templates`)).json()) as { templates: { id: string }[] };
  templateId = gallery.templates[0]?.id ?? "";
  if (!templateId) throw new Error("the gallery is empty");
  console.log(`fuzz-auth: seed ${fuzzSeed()}, ${hostRuns()} runs per route (FUZZ_SEED, FUZZ_RUNS)`);
});

afterAll(async () => {
  await restoreFetch?.();
  await stack?.release();
});

/** The authorization request of the public client (code flow, PKCE S256). */
function authorizeQuery(): Record<string, string> {
  return {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "openid profile pdf:generate",
    state: "fuzz-state",
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
  };
}

/** Starts an interaction as a browser would: authorize, then the redirect to `/interaction/<uid>`. */
async function startInteraction(): Promise<void> {
  const res = await fetch(`${origin}/oauth/authorize?${new URLSearchParams(authorizeQuery())}`, { redirect: "manual" });
  const uid = /\/interaction\/([^/?]+)/.exec(res.headers.get("location") ?? "")?.[1];
  if (!uid) throw new Error(`authorize answered ${res.status} without an interaction`);
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  interaction = { uid, cookies: cookies.join("; ") };
}

const OWN: Record<string, () => string> = {
  uid: () => interaction.uid,
  templateId: () => templateId,
  action: () => "login",
  name: () => "openid-configuration",
};

function formFields(route: HostRoute): Record<string, string> {
  const p = route.path;
  if (p.endsWith("/login")) return { email: memberEmail, password: "not the password" };
  if (p.endsWith("/confirm") && p.startsWith("/interaction")) return { workspaceId, decision: "allow" };
  if (p === "/oauth/token")
    return {
      grant_type: "client_credentials",
      client_id: confidential.clientId,
      client_secret: confidential.clientSecret,
      scope: "pdf:generate",
      code: "x",
      redirect_uri: redirectUri,
      code_verifier: pkce().verifier,
    };
  if (p === "/oauth/revoke")
    return {
      token: "x",
      token_type_hint: "refresh_token",
      client_id: confidential.clientId,
      client_secret: confidential.clientSecret,
    };
  if (p.startsWith("/oauth/logout")) return { xsrf: "x", logout: "yes", client_id: clientId };
  if (p === "/oauth/userinfo") return { access_token: "x" };
  return authorizeQuery();
}

const targets: HostTargets = {
  own: (_route, name) => OWN[name]?.(),
  foreign: (_route, name) => (name === "uid" ? "aaaaaaaaaaaaaaaaaaaaa" : undefined),
  cookies: () => [
    { name: "the interaction's cookies and a member's site session", header: `${interaction.cookies}; ${session}` },
    { name: "the interaction's cookies", header: interaction.cookies },
    { name: "another member's session", header: `${interaction.cookies}; ${otherSession}` },
    { name: "forged interaction cookies", header: "_interaction=garbage; _interaction.sig=AAAA; _session=%E0%A4%A" },
    { name: "a session with a changed signature", header: `${session.slice(0, -2)}AA` },
    { name: "malformed cookies", header: `x=%ED%A0%80; =; ;;; _interaction=%zz; ${interaction.cookies}` },
    { name: "an oversized cookie", header: `_interaction=${"a".repeat(8_000)}` },
    { name: "no cookie", header: "" },
  ],
  csrf: () => "",
  formFields,
  jsonBody: () => undefined,
  queryFields: (route): Record<string, string> =>
    route.path.startsWith("/public/templates")
      ? { q: "invoice", tag: "a", page: "2" }
      : { ...authorizeQuery(), prompt: "login", max_age: "0", post_logout_redirect_uri: redirectUri },
};

const totals: string[] = [];
afterAll(() => console.log(`fuzz-auth totals (seed ${fuzzSeed()}):\n${totals.join("\n")}`));

describe("what the auth fuzz found, fixed at its cause", () => {
  const form = (fields: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

  it("a client_id too long to be a key is an unknown client (the token endpoint answered 500 server_error)", async () => {
    const long = "a".repeat(2_000);
    const token = await fetch(
      `${origin}/oauth/token`,
      form({ grant_type: "client_credentials", client_id: long, client_secret: "x" }),
    );
    expect(token.status).toBe(401);
    expect(await token.json()).toMatchObject({ error: "invalid_client" });
    const logout = await fetch(`${origin}/oauth/logout?client_id=${long}`, { redirect: "manual" });
    expect(logout.status).toBe(400);
    expect(await logout.json()).toMatchObject({ error: "invalid_client" });
  });

  it("a token too long to be a key is an invalid token (userinfo answered 500 server_error)", async () => {
    for (const n of [2_100, 6_000]) {
      const res = await fetch(`${origin}/oauth/userinfo`, form({ access_token: "a".repeat(n) }));
      expect(res.status, String(n)).toBe(401);
      expect(await res.json()).toMatchObject({ error: "invalid_token" });
    }
  });

  it("a path or method the provider does not take is an HTML page (it answered Koa's bare text)", async () => {
    for (const [method, path] of [
      ["GET", "/oauth/nothing"],
      ["GET", "/oauth/token"],
      ["DELETE", "/jwks"],
    ] as const) {
      const res = await fetch(`${origin}${path}`, { method });
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
      expect(await res.text()).toMatch(/^<!doctype html>/i);
    }
  });
});

describe("every route of the auth host, fuzzed", () => {
  it("lists the provider's routes, the screens and the public gallery", () => {
    const names = routes.map(routeName);
    for (const expected of [
      "GET /oauth/authorize",
      "POST /oauth/token",
      "POST /oauth/revoke",
      "GET /jwks",
      "GET /interaction/:uid",
      "POST /interaction/:uid/login",
      "GET /public/templates",
      "GET /public/templates/:templateId/thumbnail",
    ])
      expect(names).toContain(expected);
  });

  it.each(routes.map(routeName))(
    "%s: no 5xx, no stack trace, every refusal an error page or error body",
    async (name) => {
      const route = routes.find((r) => routeName(r) === name)!;
      const prepare = route.path.startsWith("/interaction/") ? startInteraction : async () => {};
      if (!route.path.startsWith("/interaction/")) await startInteraction();
      const { failure, seed, statuses } = await fuzzRoute(origin, route, targets, prepare);
      totals.push(`${name.padEnd(48)} ${JSON.stringify(statuses)}`);
      expect(failure, `seed ${seed}`).toBe("");
    },
    hostRuns() * 3_000 + 120_000,
  );
});
