import { join } from "node:path";
import { systemClock } from "#shared/clock.ts";
import type { Role } from "#shared/identity/memberships.ts";
import { createOAuthClient } from "#shared/identity/oauth-clients.ts";
import { createSessionCookie } from "#shared/identity/session.ts";
import { makeUser } from "./identity-fixtures.ts";
import type { RunningStack } from "./local-stack.ts";
import { codeFlowTokens } from "./oauth-http.ts";

/** Where code-flow redirects end in tests: nothing listens, the helper stops at the redirect. */
export const REDIRECT_URI = "http://127.0.0.1:9/callback";

/**
 * Lets this test process sign login sessions with the stack's own cookie keys (the real
 * `createSessionCookie`), after useStackEmulators.
 */
export function useStackIdentityKeys(stack: RunningStack): void {
  process.env.PLATEN_IDENTITY_KEYS_FILE = join(stack.dataDir, "identity-keys.json");
}

/** A public PKCE client registered in `workspaceId`. */
export async function makePublicClient(workspaceId: string, name: string): Promise<string> {
  const { client } = await createOAuthClient(
    { workspaceId, name, isPublic: true, redirectUris: [REDIRECT_URI] },
    systemClock,
  );
  return client.clientId;
}

/** A user with roles, as a `Cookie` header of a first-party login session. */
export async function sessionOf(userId: string): Promise<string> {
  const setCookie = await createSessionCookie(userId, { secure: false });
  return setCookie.split(";")[0]!;
}

/** A user with the given roles and a code-flow access token of `clientId` bound to `workspaceId`. */
export async function userToken(
  stack: RunningStack,
  clientId: string,
  user: { email: string; password: string },
  workspaceId: string,
  scope = "openid pdf:generate",
): Promise<string> {
  const tokens = await codeFlowTokens(stack, {
    clientId,
    redirectUri: REDIRECT_URI,
    email: user.email,
    password: user.password,
    workspaceId,
    scope,
  });
  return tokens.access_token;
}

export { makeUser, type Role };

/** A management call: bearer token or session cookie, optional JSON body. */
export function manage(stack: RunningStack) {
  return async (
    method: string,
    path: string,
    auth: { token?: string; cookie?: string; appkey?: string; origin?: string },
    body?: unknown,
  ) => {
    const headers: Record<string, string> = {};
    if (auth.token) headers.authorization = `Bearer ${auth.token}`;
    if (auth.cookie) headers.cookie = auth.cookie;
    if (auth.appkey) headers.appkey = auth.appkey;
    if (auth.origin) headers.origin = auth.origin;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
    const json = (text ? JSON.parse(text) : undefined) as Record<string, any>;
    return { status: res.status, headers: res.headers, body: json };
  };
}
