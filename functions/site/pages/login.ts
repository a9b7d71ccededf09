import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { attemptLogin } from "#shared/identity/login-guard.ts";
import { readSession, SESSION_COOKIE } from "#shared/identity/session.ts";
import { endSessions } from "#shared/identity/users.ts";
import { html } from "#shared/html/html.ts";
import type { SiteIdentity } from "../identity.ts";
import { cookieValue } from "#shared/web/cookies.ts";
import { signOutAccepted } from "../page-parts.ts";
import { formRefused, page } from "../site-edge.ts";
import type { PageHandler, SiteRequest, SiteResult } from "../site-types.ts";
import { safeReturnTo } from "../return-to.ts";
import { t } from "../strings.ts";

function loginForm(
  req: SiteRequest,
  identity: SiteIdentity,
  status: number,
  returnTo: string,
  problem?: string,
  email = "",
): SiteResult {
  const s = t(req.lang);
  const alert = problem ? html`<p class="alert" role="alert" id="login-problem">${problem}</p>` : "";
  const body = html`${alert}
<form method="post" action="/login?return_to=${encodeURIComponent(returnTo)}">
  <label for="email">${s.loginEmail}</label>
  <input type="email" id="email" name="email" autocomplete="username" required maxlength="254" value="${email}">
  <label for="password">${s.loginPassword}</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required maxlength="1024">
  <p><button type="submit">${s.loginSubmit}</button></p>
</form>`;
  return { status, page: page(req, identity, false, s.loginTitle, body) };
}

/**
 * GET/POST `/login`: the first-party login on the site (e-mail and password,
 * the identity module's attempt limits, password check, signed session and device cookies), then
 * back to the page that asked for it.
 */
export const loginPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const returnTo = safeReturnTo(req.query("return_to"));
    if (req.method === "GET") return loginForm(req, identity, 200, returnTo);
    const s = t(req.lang);
    const form = req.form();
    const email = (form.get("email") ?? "").slice(0, 254);
    const password = form.get("password") ?? "";
    const outcome = await attemptLogin(
      {
        email,
        password,
        sourceAddress: req.sourceIp,
        cookieHeader: req.header("cookie"),
        secure: config().siteUrl.startsWith("https://"),
      },
      systemClock,
    );
    if (!outcome.ok && outcome.reason === "limited")
      return loginForm(req, identity, 429, returnTo, s.loginLimited, email);
    if (!outcome.ok) return loginForm(req, identity, 401, returnTo, s.loginWrong, email);
    return { status: 303, redirect: returnTo, cookies: outcome.cookies };
  };

/**
 * POST `/logout`: every session of the user ends on the server (a copied cookie stops
 * working too: `endSessions`), and the cookie is cleared (same name, path and attributes, expired).
 * A request with a session cookie must carry the sign-out token of that session (layout.ts): else 403 and
 * the session stays, so another site cannot sign the visitor out. The 403 page's own button carries a
 * fresh token (a page left open past the token's two hours). Without a cookie there is nothing to end.
 */
export const logoutAction =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const sessionCookie = cookieValue(req.header("cookie"), SESSION_COOKIE);
    if (sessionCookie && !(await signOutAccepted(sessionCookie, req.form()))) {
      return formRefused(req, identity, t(req.lang).logOut);
    }
    const session = await readSession(req.header("cookie"));
    if (session) await endSessions(session.userId, systemClock);
    const secure = config().siteUrl.startsWith("https://") ? "; Secure" : "";
    return {
      status: 303,
      redirect: "/",
      cookies: [`${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}`],
    };
  };
