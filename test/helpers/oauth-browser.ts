import { randomBytes } from "node:crypto";
import type { RunningStack } from "./local-stack.ts";
import { authOrigin, pkce } from "./oauth-http.ts";

/** What a browser shows after following the redirects of one step of the code flow. */
export type Screen =
  | { kind: "login" | "consent"; url: string; action: string }
  | { kind: "redirect"; params: URLSearchParams };

/**
 * One browser on `{auth_url}` and `{site}` (one origin locally): a cookie jar kept across
 * authorizations, site sign-in and sign-out, so a test can replay what the next person at a
 * shared computer would see. Cookies are kept by name (paths are ignored, as the forms are
 * followed in order); an expired `Set-Cookie` removes one.
 */
export class OAuthBrowser {
  private cookies = new Map<string, string>();
  verifier = "";

  constructor(
    private readonly stack: RunningStack,
    private readonly client: { clientId: string; redirectUri: string },
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (!value || /max-age=0\b/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** GET `/oauth/authorize` with PKCE and `extra` parameters (prompt, max_age…): the screen it leads to. */
  authorize(extra: Record<string, string> = {}, scope = "openid profile pdf:generate"): Promise<Screen> {
    const { verifier, challenge } = pkce();
    this.verifier = verifier;
    const query = new URLSearchParams({
      response_type: "code",
      client_id: this.client.clientId,
      redirect_uri: this.client.redirectUri,
      scope,
      state: randomBytes(8).toString("hex"),
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...extra,
    });
    return this.follow(`${authOrigin(this.stack)}/oauth/authorize?${query}`);
  }

  /** Posts a screen's form (login: e-mail and password; consent: workspace and decision). */
  submit(screen: Screen, form: Record<string, string>): Promise<Screen> {
    if (screen.kind === "redirect") throw new Error("nothing to submit on a redirect");
    return this.follow(new URL(screen.action, screen.url).href, new URLSearchParams(form));
  }

  /** Signs in on the site's own `/login` form. */
  async siteLogin(email: string, password: string): Promise<void> {
    const res = await fetch(`${authOrigin(this.stack)}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: this.cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password }),
    });
    if (res.status !== 303) throw new Error(`site login answered ${res.status}`);
    this.store(res);
  }

  /** Signs out with the sign-out button of a site page (it carries the session's CSRF token). */
  async siteSignOut(): Promise<void> {
    const origin = authOrigin(this.stack);
    const page = await (await fetch(`${origin}/output-history`, { headers: { cookie: this.cookieHeader() } })).text();
    const token = /name="logout_csrf" value="([^"]+)"/.exec(page)?.[1];
    if (!token) throw new Error("no sign-out form: not signed in on the site");
    const res = await fetch(`${origin}/logout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: this.cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ logout_csrf: token }),
    });
    if (res.status !== 303) throw new Error(`sign-out answered ${res.status}`);
    this.store(res);
  }

  private async follow(start: string, body?: URLSearchParams): Promise<Screen> {
    let url = start;
    let form = body;
    for (let step = 0; step < 12; step++) {
      const res = await fetch(url, {
        method: form ? "POST" : "GET",
        redirect: "manual",
        headers: {
          cookie: this.cookieHeader(),
          ...(form && { "content-type": "application/x-www-form-urlencoded" }),
        },
        ...(form && { body: form }),
      });
      this.store(res);
      form = undefined;
      const location = res.headers.get("location");
      if (location) {
        const next = new URL(location, url);
        if (next.href.startsWith(this.client.redirectUri)) return { kind: "redirect", params: next.searchParams };
        url = next.href;
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${html.slice(0, 300)}`);
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&#47;/g, "/");
      if (!action) throw new Error(`no form on ${url}`);
      return { kind: html.includes('name="password"') ? "login" : "consent", url, action };
    }
    throw new Error("too many redirects");
  }
}
