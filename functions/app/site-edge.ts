import middy from "@middy/core";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { config } from "#shared/aws/config.ts";
import type { PlatenError } from "#shared/errors/platen-error.ts";
import { type EdgeResponse, type ProxyHandler, requestOf } from "#shared/http/edge-context.ts";
import { defaultHeaders } from "#shared/http/middleware/default-headers.ts";
import { errorBoundary } from "#shared/http/middleware/error-boundary.ts";
import { observability } from "#shared/http/middleware/observability.ts";
import { readRequest, requestContext } from "#shared/http/middleware/request-context.ts";
import { router } from "#shared/http/middleware/router.ts";
import { send } from "#shared/http/send.ts";
import { type EdgeResult, toProxy } from "#shared/http/to-proxy.ts";
import { setCookie } from "#shared/web/cookies.ts";
import { securityHeaders } from "#shared/web/security-headers.ts";
import { sentFromAnotherSite } from "#shared/cross-site.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { LANG_COOKIE, siteRequest } from "./site-request.ts";
import type { SiteContext, SitePage, SiteRequest, SiteResult } from "./site-types.ts";
import { t } from "./strings.ts";
import type { SiteIdentity } from "./identity.ts";
import { safeReturnTo } from "./return-to.ts";

const https = () => config().siteUrl.startsWith("https://");

/** The HTML page of a result: the shell around a body, with the language switch and login link. */
export function page(req: SiteRequest, identity: SiteIdentity, loggedIn: boolean, title: string, body: Html): Html {
  const other = req.lang === "ja" ? "en" : "ja";
  const switchHref = req.path.startsWith("/ja/docs/")
    ? req.path.slice(3)
    : req.path.startsWith("/docs/")
      ? `/ja${req.path}`
      : `${req.path}?lang=${other}`;
  return layout({ lang: req.lang, switchHref, loggedIn, loginHref: identity.loginUrl(req.returnTo) }, title, body);
}

/** The 404 page: unknown addresses and things the visitor may not see look the same. */
export function notFound(req: SiteRequest, identity: SiteIdentity, loggedIn: boolean): SiteResult {
  const s = t(req.lang);
  const body = html`<p>${s.notFoundBody}</p>${loggedIn ? "" : html`<p><a href="${identity.loginUrl(req.returnTo)}">${s.notFoundLogin}</a></p>`}`;
  return { status: 404, page: page(req, identity, loggedIn, s.notFoundTitle, body) };
}

/** 403 for a form that may not be applied: an expired or foreign CSRF token, or a role short of it. */
export function formRefused(req: SiteRequest, identity: SiteIdentity, title: string): SiteResult {
  const s = t(req.lang);
  return {
    status: 403,
    page: page(req, identity, true, title, html`<p class="alert" role="alert">${s.invitationsForbidden}</p>`),
  };
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
  response.head.headers = { ...securityHeaders("page", https()), ...response.head.headers };
  return response;
}

/**
 * How the site shows an error: a not-found one as the 404 page, anything else as a generic
 * 500 page (never a stack trace; errorBoundary logs it with its cause).
 */
function siteErrorAnswer(identity: SiteIdentity) {
  return (err: PlatenError, request: SiteRequest | undefined, event: APIGatewayProxyEvent, context: Context) => {
    const req = request ?? siteRequest(readRequest(event, context));
    const s = t(req.lang);
    const result: SiteResult =
      err.status === 404
        ? notFound(req, identity, false)
        : { status: 500, page: page(req, identity, false, s.serverErrorTitle, html`<p>${s.serverErrorBody}</p>`) };
    return ownAnswer(result, req);
  };
}

/**
 * The site's Lambda handler: the shared middleware chain around its route table
 * (handler.ts). `before` runs top to bottom, `after` and `onError` bottom to top:
 *   1. security headers – on every answer, errors included (the route's profile or the page one)
 *   2. errorBoundary    – not-found errors → the 404 page, anything else → a generic 500 page
 *   3. observability    – the invocation's log keys; publishes its metrics at the end
 *   4. requestContext   – headers, query, cookies, form, language (path, cookie, Accept-Language)
 *   5. router           – the route table's row and path parameters
 * Then the language switch and the cross-site refusal, before any page handler runs.
 * Answers stream through Lambda response streaming (downloads are never buffered).
 */
export function siteHandler(table: SitePage[], identity: SiteIdentity): ProxyHandler {
  // No early time-out: as before, a page that runs out of time is the gateway's answer.
  const chain = middy<APIGatewayProxyEvent, EdgeResponse, Error, SiteContext>({ timeoutEarlyInMillis: 0 })
    .use(defaultHeaders<SiteContext>((context) => securityHeaders(context.route?.route?.headers ?? "page", https())))
    .use(errorBoundary(siteErrorAnswer(identity)))
    .use(observability())
    .use(requestContext(siteRequest))
    .use(router(table))
    .handler(async (_event: APIGatewayProxyEvent, context: SiteContext) => {
      const match = context.route;
      const req: SiteRequest = { ...requestOf(context), params: match?.params ?? {} };
      const early = languageSwitch(req) ?? (crossSitePost(req) ? crossSiteRefused(req, identity) : undefined);
      if (early) return ownAnswer(early, req);
      if (!match?.route) return ownAnswer(unrouted(req, identity, match?.allow ?? []), req);
      return answer(await match.route.page(req), req);
    });
  return send(chain, { streaming: true });
}
