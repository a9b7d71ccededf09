import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { config } from "#shared/aws/config.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { logger, startLogContext } from "#shared/observability/logger.ts";
import type { EdgeResponse, ProxyHandler } from "#shared/http/edge-context.ts";
import { send } from "#shared/http/send.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { cookieAttributes, type HeaderProfile, securityHeaders } from "./security-headers.ts";
import { LANG_COOKIE, toSiteRequest } from "./site-request.ts";
import type { PageHandler, SiteRequest, SiteResult } from "./site-types.ts";
import { t } from "./strings.ts";
import type { SiteIdentity } from "./identity.ts";
import { safeReturnTo } from "./return-to.ts";
import { sentFromAnotherSite } from "#shared/cross-site.ts";

export interface SiteRoute {
  methods: string[];
  pattern: RegExp;
  names: string[];
  handler: PageHandler;
  profile?: HeaderProfile;
}

/** `/file/:requestId/:fileId` → a route matching one path segment per name. */
export function route(methods: string[], path: string, handler: PageHandler, profile?: HeaderProfile): SiteRoute {
  const names: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { methods, pattern: new RegExp(`^${source}$`), names, handler, profile };
}

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

function toProxy(result: SiteResult, profile: HeaderProfile, lang: string): EdgeResponse {
  const headers: Record<string, string> = {
    ...securityHeaders(profile, https()),
    "Content-Language": lang,
    ...result.headers,
  };
  const multiValueHeaders = result.cookies?.length ? { "Set-Cookie": result.cookies } : undefined;
  const head = { statusCode: result.status, ...(multiValueHeaders && { multiValueHeaders }) };
  if ("redirect" in result) return { head: { ...head, headers: { ...headers, Location: result.redirect }, body: "" } };
  if ("stream" in result) {
    const streamHeaders = {
      ...headers,
      "Content-Type": result.contentType,
      "Content-Length": String(result.contentLength),
    };
    return { head: { ...head, headers: streamHeaders, body: "", isBase64Encoded: true }, body: result.stream };
  }
  const [text, type] =
    "page" in result ? [result.page.text, "text/html; charset=utf-8"] : [result.text, result.contentType];
  const bytes = Buffer.from(text, "utf8");
  return {
    head: { ...head, headers: { ...headers, "Content-Type": type, "Content-Length": String(bytes.length) }, body: "" },
    body: bytes,
  };
}

/** Every form posts to this site only: a browser's POST from elsewhere is refused before any handler runs. */
export function crossSitePost(req: SiteRequest): boolean {
  return req.method === "POST" && sentFromAnotherSite((name) => req.header(name));
}

/** `?lang=ja` on any page: remember the choice in a cookie and come back without the parameter. */
function languageSwitch(req: SiteRequest): SiteResult | undefined {
  const wanted = req.query("lang");
  if (wanted !== "en" && wanted !== "ja") return undefined;
  const cookie = `${LANG_COOKIE}=${wanted}; ${cookieAttributes({ path: "/", maxAgeSeconds: 365 * 86400, https: https(), sameSite: "Lax" })}`;
  return { status: 303, redirect: safeReturnTo(req.returnTo), cookies: [cookie] };
}

/**
 * The site's Lambda handler: routes by method and path, answers HTML with the security
 * headers of item 5, and never shows a stack trace (unknown errors → a generic 500 page,
 * logged with their cause). Streams through Lambda response streaming (downloads).
 */
export function siteHandler(routes: SiteRoute[], identity: SiteIdentity): ProxyHandler {
  const inner = async (event: APIGatewayProxyEvent, context: Context): Promise<EdgeResponse> => {
    startLogContext(context, { apiRequestId: event.requestContext?.requestId });
    const path = event.path || "/";
    const matches = routes.filter((r) => r.pattern.test(path));
    const match = matches.find((r) => r.methods.includes(event.httpMethod.toUpperCase()));
    const params = match
      ? Object.fromEntries(match.names.map((n, i) => [n, safeDecode(match.pattern.exec(path)![i + 1]!)]))
      : {};
    const req = toSiteRequest(event, params);
    try {
      const switched = req.method === "GET" ? languageSwitch(req) : undefined;
      if (switched) return toProxy(switched, "page", req.lang);
      if (crossSitePost(req)) {
        const s = t(req.lang);
        return toProxy(
          {
            status: 403,
            page: page(
              req,
              identity,
              false,
              s.serverErrorTitle,
              html`<p class="alert" role="alert">${s.crossSite}</p>`,
            ),
          },
          "page",
          req.lang,
        );
      }
      if (!match) {
        const result = notFound(req, identity, false);
        return toProxy(
          matches.length
            ? { ...result, status: 405, headers: { Allow: matches.flatMap((m) => m.methods).join(", ") } }
            : result,
          "page",
          req.lang,
        );
      }
      return toProxy(await match.handler(req), match.profile ?? "page", req.lang);
    } catch (err) {
      if (isPlatenError(err) && err.status === 404) return toProxy(notFound(req, identity, false), "page", req.lang);
      logger.error("site page failed", { path, error: err as Error });
      const s = t(req.lang);
      return toProxy(
        { status: 500, page: page(req, identity, false, s.serverErrorTitle, html`<p>${s.serverErrorBody}</p>`) },
        "page",
        req.lang,
      );
    }
  };
  return send(inner, { streaming: true });
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
