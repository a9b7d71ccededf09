import { createHash, randomBytes } from "node:crypto";
import type { RunningStack } from "./local-stack.ts";

/** The origin of `{auth_url}` for a local stack (one origin serves API and auth). */
export const authOrigin = (stack: RunningStack) => `http://127.0.0.1:${stack.port}`;

/** A PKCE pair (RFC 7636 S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** POST to the token endpoint (form-encoded, optional Basic credentials, extra headers); returns status, JSON and headers. */
export async function tokenRequest(
  stack: RunningStack,
  form: Record<string, string>,
  basic?: { id: string; secret: string },
  extraHeaders: Record<string, string> = {},
) {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded", ...extraHeaders };
  if (basic)
    headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString("base64")}`;
  const res = await fetch(`${authOrigin(stack)}/oauth/token`, {
    method: "POST",
    headers,
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string | number>, headers: res.headers };
}

/** A minimal cookie jar for driving the login and consent forms without a browser. */
class CookieJar {
  private cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

export interface CodeFlowInput {
  clientId: string;
  redirectUri: string;
  email: string;
  password: string;
  workspaceId: string;
  scope?: string;
  decision?: "allow" | "deny";
}

/**
 * The authorization-code flow driven with plain HTTP through the HTML forms (they need no
 * JavaScript): authorize → login form → consent form → redirect. Returns the final
 * redirect's query (code and state, or error) and the PKCE verifier.
 */
export async function authorizeWithForms(
  stack: RunningStack,
  input: CodeFlowInput,
): Promise<{ params: URLSearchParams; verifier: string; state: string }> {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString("hex");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    scope: input.scope ?? "openid profile pdf:generate",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const jar = new CookieJar();
  let url = `${authOrigin(stack)}/oauth/authorize?${query}`;
  let form: { action: string; body: URLSearchParams } | undefined;
  for (let step = 0; step < 12; step++) {
    const res = await fetch(
      url,
      form
        ? {
            method: "POST",
            redirect: "manual",
            headers: { Cookie: jar.header(), "Content-Type": "application/x-www-form-urlencoded" },
            body: form.body,
          }
        : { redirect: "manual", headers: { Cookie: jar.header() } },
    );
    jar.store(res);
    form = undefined;
    const location = res.headers.get("location");
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(input.redirectUri)) return { params: next.searchParams, verifier, state };
      url = next.href;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`form step answered ${res.status}: ${html.slice(0, 300)}`);
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&#47;/g, "/");
    if (!action) throw new Error(`no form on ${url}`);
    const body = html.includes('name="password"')
      ? new URLSearchParams({ email: input.email, password: input.password })
      : new URLSearchParams({ workspaceId: input.workspaceId, decision: input.decision ?? "allow" });
    url = new URL(action, url).href;
    form = { action, body };
  }
  throw new Error("the authorization flow did not reach the redirect URI");
}

/** Code flow + token exchange: an access and refresh token bound to `workspaceId`. */
export async function codeFlowTokens(stack: RunningStack, input: CodeFlowInput) {
  const { params, verifier } = await authorizeWithForms(stack, input);
  const code = params.get("code");
  if (!code) throw new Error(`no code: ${params}`);
  const res = await tokenRequest(stack, {
    grant_type: "authorization_code",
    code,
    redirect_uri: input.redirectUri,
    client_id: input.clientId,
    code_verifier: verifier,
  });
  if (res.status !== 200) throw new Error(`token exchange ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as {
    access_token: string;
    refresh_token: string;
    scope: string;
    expires_in: number;
    token_type: string;
    id_token?: string;
  };
}
