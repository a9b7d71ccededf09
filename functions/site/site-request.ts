import { type Language, pickLanguage } from "#shared/errors/language.ts";
import type { EdgeRequest } from "#shared/http/middleware/request-context.ts";
import type { SiteRequest } from "./site-types.ts";

/** The cookie the language switch sets; it wins over Accept-Language. */
export const LANG_COOKIE = "platen_lang";

/**
 * `/ja/...` pages are Japanese by address; elsewhere the switch's cookie, then Accept-Language
 * (README.md#errors).
 */
function languageOf(path: string, cookie: string | undefined, acceptLanguage: string | undefined): Language {
  if (path === "/ja" || path.startsWith("/ja/")) return "ja";
  if (path.startsWith("/docs/")) return "en";
  if (cookie === "en" || cookie === "ja") return cookie;
  return pickLanguage(acceptLanguage);
}

/**
 * The page handlers' view of a request, on top of what the shared request context reads
 * (headers, query, cookies, body): method, path, language, form, client address. The
 * router fills in the matched route's path parameters.
 */
export function siteRequest(request: EdgeRequest): SiteRequest {
  const event = request.event;
  const path = event.path || "/";
  const search = new URLSearchParams(
    Object.entries(event.queryStringParameters ?? {}).filter(([k]) => k !== "lang") as [string, string][],
  ).toString();
  let form: URLSearchParams | undefined;
  return {
    ...request,
    method: event.httpMethod.toUpperCase(),
    path,
    params: {},
    lang: languageOf(path, request.cookie(LANG_COOKIE), request.header("accept-language")),
    form: () => {
      const type = (request.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      form ??= new URLSearchParams(type === "application/x-www-form-urlencoded" ? (request.bodyText() ?? "") : "");
      return form;
    },
    sourceIp: event.requestContext?.identity?.sourceIp ?? "unknown",
    returnTo: `${path}${search ? `?${search}` : ""}`,
  };
}
