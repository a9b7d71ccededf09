import type { APIGatewayProxyEvent } from "aws-lambda";
import { type Language, pickLanguage } from "#shared/errors/language.ts";
import type { SiteRequest } from "./site-types.ts";

/** The cookie the language switch sets; it wins over Accept-Language. */
export const LANG_COOKIE = "platen_lang";

/** Header lookup ignoring case (API Gateway keeps the client's spelling). */
function headerReader(event: APIGatewayProxyEvent): (name: string) => string | undefined {
  const lower = new Map(Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v ?? undefined]));
  return (name) => lower.get(name.toLowerCase());
}

/** RFC 6265 cookie header → map (first occurrence wins, as browsers send the most specific path first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** `/ja/...` pages are Japanese by address; elsewhere the switch's cookie, then Accept-Language (spec 7.1 rule). */
function languageOf(path: string, cookie: string | undefined, acceptLanguage: string | undefined): Language {
  if (path === "/ja" || path.startsWith("/ja/")) return "ja";
  if (path.startsWith("/docs/")) return "en";
  if (cookie === "en" || cookie === "ja") return cookie;
  return pickLanguage(acceptLanguage);
}

function bodyText(event: APIGatewayProxyEvent): string {
  if (!event.body) return "";
  return event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
}

/** Builds the page handlers' view of an API Gateway proxy event. */
export function toSiteRequest(event: APIGatewayProxyEvent, params: Record<string, string>): SiteRequest {
  const header = headerReader(event);
  const cookies = parseCookies(header("cookie"));
  const query = event.queryStringParameters ?? {};
  const path = event.path || "/";
  const search = new URLSearchParams(
    Object.entries(query).filter(([k]) => k !== "lang") as [string, string][],
  ).toString();
  let form: URLSearchParams | undefined;
  return {
    event,
    method: event.httpMethod.toUpperCase(),
    path,
    params,
    lang: languageOf(path, cookies.get(LANG_COOKIE), header("accept-language")),
    header,
    query: (name) => query[name] ?? undefined,
    cookie: (name) => cookies.get(name),
    form: () => {
      const type = (header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      form ??= new URLSearchParams(type === "application/x-www-form-urlencoded" ? bodyText(event) : "");
      return form;
    },
    sourceIp: event.requestContext?.identity?.sourceIp ?? "unknown",
    returnTo: `${path}${search ? `?${search}` : ""}`,
  };
}
