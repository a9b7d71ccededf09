import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { config } from "#shared/aws/config.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import type { PlatenError } from "#shared/errors/platen-error.ts";
import { type EdgeResponse, type ProxyHandler, requestOf, withDefaultHeaders } from "#shared/http/edge-context.ts";
import { edgeChain } from "#shared/http/edge-chain.ts";
import { readRequest } from "#shared/http/middleware/request-context.ts";
import { router } from "#shared/http/middleware/router.ts";
import type { RouteMatch } from "#shared/http/route-table.ts";
import { send } from "#shared/http/send.ts";
import { type EdgeResult, toProxy } from "#shared/http/to-proxy.ts";
import { cookieValue, setCookie } from "#shared/web/cookies.ts";
import { SESSION_COOKIE } from "#shared/identity/session.ts";
import { errorCodeLink, signOutToken } from "./page-parts.ts";
import { securityHeaders } from "#shared/web/security-headers.ts";
import { sentFromAnotherSite } from "#shared/cross-site.ts";
import { type Html, html } from "#shared/html/html.ts";
import { layout } from "./layout.ts";
import { LANG_COOKIE, siteRequest } from "./site-request.ts";
import type { SitePage, SiteRequest, SiteResult } from "./site-types.ts";
import { t } from "./strings.ts";
import type { SiteIdentity } from "./identity.ts";
import { safeReturnTo } from "./return-to.ts";

const https = () => config().siteUrl.startsWith("https://");

/** Pages with a Japanese address of their own (`/ja/docs/…`, `/ja/records`): their language switch is a link. */
const hasJapanesePath = (path: string) => path.startsWith("/docs/") || path === "/records";

/** The HTML page of a result: the shell around a body, with the language switch and login link. */
export function page(
  req: SiteRequest,
  identity: SiteIdentity,
  loggedIn: boolean,
  title: string,
  body: Html,
  options: { script?: string; wide?: boolean } = {},
): Html {
  const other = req.lang === "ja" ? "en" : "ja";
  const switchHref =
    req.path.startsWith("/ja/") && hasJapanesePath(req.path.slice(3))
      ? req.path.slice(3)
      : hasJapanesePath(req.path)
        ? `/ja${req.path}`
        : `${req.path}?lang=${other}`;
  const loginHref = identity.loginUrl(req.returnTo);
  return layout(
    { lang: req.lang, switchHref, loggedIn, loginHref, signOutToken: req.signOutToken, ...options },
    title,
    body,
  );
}

/** The 404 page: unknown addresses and things the visitor may not see look the same. */
export function notFound(req: SiteRequest, identity: SiteIdentity, loggedIn: boolean): SiteResult {
  const s = t(req.lang);
  const login = loggedIn ? "" : html`<p><a href="${identity.loginUrl(req.returnTo)}">${s.notFoundLogin}</a></p>`;
  const body = html`<p>${s.notFoundBody}</p>
${login}`;
  return { status: 404, page: page(req, identity, loggedIn, s.notFoundTitle, body) };
}

/** 403 for a form that may not be applied: an expired or foreign CSRF token, or a role short of it. */
export function formRefused(req: SiteRequest, identity: SiteIdentity, title: string): SiteResult {
  const s = t(req.lang);
  const body = html`<p class="alert" role="alert">${s.invitationsForbidden}</p>`;
  return { status: 403, page: page(req, identity, true, title, body) };
}

/** Every form posts to this site only: a browser's POST from elsewhere is refused before any handler runs. */
export function crossSitePost(req: SiteRequest): boolean {
  return req.method === "POST" && sentFromAnotherSite((name) => req.header(name));
}

/** `?lang=ja` on any page: remember the choice in a cookie and come back without the parameter. */
function languageSwitch(req: SiteRequest): SiteResult | undefined {
  if (req.method !== "GET") return undefined;
  const wanted = req.query("lang");
  if (wanted !== "en" && wanted !== "ja") return undefined;
  const cookie = setCookie(LANG_COOKIE, wanted, {
    path: "/",
    maxAgeSeconds: 365 * 86400,
    https: https(),
    sameSite: "Lax",
  });
  return { status: 303, redirect: safeReturnTo(req.returnTo), cookies: [cookie] };
}

/** The 403 page of a cross-site POST. */
function crossSiteRefused(req: SiteRequest, identity: SiteIdentity): SiteResult {
  const s = t(req.lang);
  const body = html`<p class="alert" role="alert">${s.crossSite}</p>`;
  return { status: 403, page: page(req, identity, false, s.serverErrorTitle, body) };
}

/** A path of no route is the 404 page; a path whose routes take other methods, 405 with `Allow`. */
function unrouted(req: SiteRequest, identity: SiteIdentity, allow: string[]): SiteResult {
  const result = notFound(req, identity, false);
  return allow.length ? { ...result, status: 405, headers: { Allow: allow.join(", ") } } : result;
}

/** A page's result in the shared result shape (pages are HTML text). */
const edgeResult = (result: SiteResult): EdgeResult =>
  "page" in result ? { ...result, text: result.page.text, contentType: "text/html; charset=utf-8" } : result;

const answer = (result: SiteResult, req: SiteRequest): EdgeResponse =>
  toProxy(edgeResult(result), { lang: req.lang, streaming: true });

/** An answer of the site's own (switch, refusal, 404, error): page headers, whatever the route's profile. */
function ownAnswer(result: SiteResult, req: SiteRequest): EdgeResponse {
  const response = answer(result, req);
  withDefaultHeaders(response, securityHeaders("page", https()));
  return response;
}

/**
 * How the site shows an error: a not-found one as the 404 page, another refusal of the catalogue (4xx:
 * a query value no page takes, say) as a page with its status, its message and its code linked to
 * the docs, anything else as a generic 500 page (never a stack trace; errorBoundary logs it with its
 * cause).
 */
function siteErrorAnswer(identity: SiteIdentity) {
  return (err: PlatenError, request: SiteRequest | undefined, event: APIGatewayProxyEvent, context: Context) => {
    const req = request ?? siteRequest(readRequest(event, context));
    const s = t(req.lang);
    let result: SiteResult;
    if (err.status === 404) result = notFound(req, identity, false);
    else if (err.status >= 400 && err.status < 500) result = refusedPage(req, identity, err);
    else
      result = { status: 500, page: page(req, identity, false, s.serverErrorTitle, html`<p>${s.serverErrorBody}</p>`) };
    return ownAnswer(result, req);
  };
}

/** A catalogue refusal as a page: the message (each detail of a validation error) in the visitor's language. */
function refusedPage(req: SiteRequest, identity: SiteIdentity, err: PlatenError): SiteResult {
  const body = buildErrorBody(err, req.lang, config().siteUrl);
  const lines = Array.isArray(body.message) ? body.message : [body.message];
  const content = html`<p class="alert" role="alert">${lines.map((line) => html`${line}<br>`)}</p>
<p>${errorCodeLink(req.lang, body.code)}</p>`;
  const headers = err.retryAfter !== undefined ? { "Retry-After": String(err.retryAfter) } : undefined;
  return {
    status: err.status,
    ...(headers && { headers }),
    page: page(req, identity, false, t(req.lang).requestRefusedTitle, content),
  };
}

/**
 * The site's Lambda handler: its route table (handler.ts) in the shared chain
 * (shared/http/edge-chain.ts) with the site's parts: the route's security headers on every
 * answer; not-found errors as the 404 page and anything else as a generic 500 page; the
 * site's request (form, language by path, cookie or Accept-Language); the router. Then the
 * language switch and the cross-site refusal, before any page handler runs. Answers stream
 * through Lambda response streaming (downloads are never buffered).
 */
export function siteHandler(table: SitePage[], identity: SiteIdentity): ProxyHandler {
  const chain = edgeChain<SiteRequest, RouteMatch<SitePage>>(
    {
      headers: (context) => securityHeaders(context.route?.route?.headers ?? "page", https()),
      errors: siteErrorAnswer(identity),
      request: siteRequest,
      steps: [router(table)],
      // No early time-out: as before, a page that runs out of time is the gateway's answer.
      timeoutEarlyInMillis: 0,
    },
    async (_event, context) => {
      const match = context.route;
      const base = requestOf(context);
      const signOut = await signOutToken(cookieValue(base.header("cookie"), SESSION_COOKIE));
      const req: SiteRequest = { ...base, params: match?.params ?? {}, ...(signOut && { signOutToken: signOut }) };
      const early = languageSwitch(req) ?? (crossSitePost(req) ? crossSiteRefused(req, identity) : undefined);
      if (early) return ownAnswer(early, req);
      if (!match?.route) return ownAnswer(unrouted(req, identity, match?.allow ?? []), req);
      return answer(await match.route.page(req), req);
    },
  );
  return send(chain, { streaming: true });
}
