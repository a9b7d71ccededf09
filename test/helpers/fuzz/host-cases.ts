import fc from "fast-check";
import {
  encodeSegment,
  type FuzzJson,
  fuzzJson,
  hostileSegment,
  nastyText,
  notJsonText,
  toJsonText,
} from "./hostile-values.ts";
import type { HostRoute } from "./host-routes.ts";

/**
 * One generated browser-or-script request to the site or the auth host: path parameters (a
 * real id, another workspace's, or hostile text), query values, a body (a url-encoded form,
 * JSON, or bytes that are neither), cookies (none, a member's valid session, a forged one,
 * hostile extra cookies), the CSRF token (valid, missing, forged), the language, and now and
 * then a cross-site POST or a method the route does not take. Values that must reach the server
 * as sent (malformed percent-escapes, lone surrogates as their three bytes) are encoded by hand.
 */

/** What a fuzz file knows of its stack: real values to aim at, cookies, bodies a route would accept. */
export interface HostTargets {
  /** A real value of a path parameter of this name (the member's own), or undefined when there is none. */
  own(route: HostRoute, name: string): string | undefined;
  /** The same kind of value of another workspace (or of nobody), or undefined. */
  foreign(route: HostRoute, name: string): string | undefined;
  /** Cookie headers by kind: index 0 is the member's valid session; the rest are other members, forged, hostile. */
  cookies(route: HostRoute): { name: string; header: string }[];
  /** A CSRF token the server accepts for the member (form field and script header). */
  csrf(): string;
  /** Form fields the route would take (url-encoded), before mutation. */
  formFields(route: HostRoute): Record<string, string>;
  /** The JSON body a script call of the route would send, before mutation, or undefined. */
  jsonBody(route: HostRoute): Record<string, FuzzJson> | undefined;
  /** Query parameters the route reads, valid values. */
  queryFields(route: HostRoute): Record<string, string>;
}

/** Escapes no decoder accepts, and the three bytes of a lone surrogate (`%ED%A0%80`). */
export const malformedEscape = fc.constantFrom(
  "%E0%A4%A",
  "%",
  "%zz",
  "%E0%A4",
  "%ED%A0%80",
  "%ED%BF%BF",
  "%C0%AF",
  "%FF",
  "a%",
  "%%",
  "%u0041",
  "%25%",
  "%2e%2e%2f",
);

/** Text written raw into a path segment, query value or form field: already percent-encoded. */
export const rawValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: malformedEscape },
  { weight: 3, arbitrary: hostileSegment },
  { weight: 3, arbitrary: nastyText.map(encodeSegment) },
  { weight: 1, arbitrary: fc.constantFrom("", "0", "-1", "1.5", "99999999999999999999", "true", "[]", "{}") },
  // Oversized: just over what any field takes, still inside the gateway's 16 KB head (query) or body limits.
  { weight: 1, arbitrary: fc.constantFrom(300, 2_000, 6_000).map((n) => "a".repeat(n)) },
);

/** Form fields oversized beyond the head's limit (bodies only). */
const hugeFormValue = fc.constantFrom(70_000, 1_000_001).map((n) => "x".repeat(n));

export type ParamChoice = "own" | "foreign" | { raw: string };
export type CookieChoice = number;
export type BodyCase =
  | { kind: "none" }
  | { kind: "form"; text: string; contentType: string }
  | { kind: "json"; text: string; contentType: string }
  | { kind: "raw"; bytes: string | Uint8Array; contentType: string | undefined };

export interface HostCase {
  params: Record<string, ParamChoice>;
  query: [string, string][];
  body: BodyCase;
  cookie: CookieChoice;
  csrf: "valid" | "none" | { raw: string };
  acceptLanguage: string | undefined;
  crossSite: boolean;
  otherMethod: string | undefined;
}

const paramChoice: fc.Arbitrary<ParamChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<ParamChoice>("own") },
  { weight: 1, arbitrary: fc.constant<ParamChoice>("foreign") },
  { weight: 4, arbitrary: rawValue.map((raw) => ({ raw })) },
);

/** Form pairs: the route's fields mutated (dropped, replaced by hostile or huge values), plus extra names. */
function formText(fields: Record<string, string>, csrf: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const names = Object.keys(fields);
  const value = (name: string) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(encodeURIComponent(fields[name]!)) },
      { weight: 4, arbitrary: rawValue },
      { weight: 1, arbitrary: hugeFormValue },
    );
  const pairs = fc.tuple(
    ...names.map((name) =>
      fc.option(
        value(name).map((v) => `${encodeURIComponent(name)}=${v}`),
        { freq: 6 },
      ),
    ),
  );
  const extra = fc.array(
    fc.tuple(rawValue, rawValue).map(([k, v]) => `${k}=${v}`),
    { maxLength: 3 },
  );
  return fc.tuple(pairs, extra, fc.option(csrf, { freq: 5 }), fc.boolean()).map(([own, more, token, repeat]) => {
    const all = [...(own.filter(Boolean) as string[]), ...more];
    if (token !== null) all.push(`csrf=${token}`);
    // A repeated field: the server reads one of them.
    if (repeat && all.length) all.push(all[0]!);
    return all.join("&");
  });
}

/** A JSON body: the route's own mutated (a field replaced or removed, an extra key), or any JSON value. */
function jsonText(base: Record<string, FuzzJson> | undefined): fc.Arbitrary<string> {
  const keys = Object.keys(base ?? {});
  const mutated = base
    ? fc
        .tuple(fc.constantFrom(...keys), fc.option(fuzzJson, { freq: 4 }), fc.option(fc.tuple(nastyText, fuzzJson)))
        .map(([key, value, extra]) => {
          const copy: Record<string, FuzzJson> = { ...base };
          if (value === null) delete copy[key];
          else copy[key] = value;
          if (extra) copy[extra[0]] = extra[1];
          return toJsonText(copy);
        })
    : fuzzJson.map(toJsonText);
  return fc.oneof({ weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: fuzzJson.map(toJsonText) });
}

function bodyCase(route: HostRoute, targets: HostTargets, csrf: fc.Arbitrary<string>): fc.Arbitrary<BodyCase> {
  const form = formText(targets.formFields(route), csrf).map(
    (text): BodyCase => ({ kind: "form", text, contentType: "application/x-www-form-urlencoded" }),
  );
  const json = jsonText(targets.jsonBody(route)).map(
    (text): BodyCase => ({ kind: "json", text, contentType: "application/json" }),
  );
  const raw = fc
    .tuple(
      notJsonText,
      fc.constantFrom(
        undefined,
        "text/plain",
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "multipart/form-data",
        "application/zip",
      ),
    )
    .map(([bytes, contentType]): BodyCase => ({ kind: "raw", bytes, contentType }));
  const scripted = targets.jsonBody(route) !== undefined;
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<BodyCase>({ kind: "none" }) },
    { weight: scripted ? 2 : 5, arbitrary: form },
    { weight: scripted ? 5 : 1, arbitrary: json },
    { weight: 2, arbitrary: raw },
  );
}

/** A query: the route's own fields, some replaced by hostile values, plus hostile extra names. */
function queryPairs(fields: Record<string, string>): fc.Arbitrary<[string, string][]> {
  const names = Object.keys(fields);
  const own = fc.tuple(
    ...names.map((name) =>
      fc.option(
        fc.oneof(fc.constant(encodeURIComponent(fields[name]!)), rawValue).map((v): [string, string] => [name, v]),
        { freq: 3 },
      ),
    ),
  );
  const extra = fc.array(fc.tuple(rawValue, rawValue), { maxLength: 2 });
  return fc.tuple(own, extra).map(([o, e]) => [...(o.filter(Boolean) as [string, string][]), ...e]);
}

/** One case for `route`. */
export function hostCase(route: HostRoute, targets: HostTargets): fc.Arbitrary<HostCase> {
  const csrfRaw = fc.oneof(fc.constant(targets.csrf()), rawValue);
  const cookieCount = targets.cookies(route).length;
  return fc.record({
    params: fc.record(Object.fromEntries(route.params.map((p) => [p, paramChoice]))) as fc.Arbitrary<
      Record<string, ParamChoice>
    >,
    query: queryPairs(targets.queryFields(route)),
    body: route.method === "GET" ? fc.constant<BodyCase>({ kind: "none" }) : bodyCase(route, targets, csrfRaw),
    // The valid session on half the cases, so the pages behind the login are reached.
    cookie: fc.oneof(
      { weight: 5, arbitrary: fc.constant(0) },
      { weight: 5, arbitrary: fc.integer({ min: 1, max: Math.max(1, cookieCount - 1) }) },
    ),
    csrf: fc.oneof(
      { weight: 3, arbitrary: fc.constant<"valid">("valid") },
      { weight: 1, arbitrary: fc.constant<"none">("none") },
      { weight: 1, arbitrary: rawValue.map((raw) => ({ raw })) },
    ),
    acceptLanguage: fc.constantFrom(undefined, "ja", "en", "ja-JP,ja;q=0.9", "*", "xx-%%", "ja;q=abc,,"),
    // A browser's POST from another site, on one case in ten.
    crossSite: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    // A method the route does not take, on one case in fifteen.
    otherMethod: fc.oneof(
      { weight: 14, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom("PUT", "DELETE", "PATCH", "OPTIONS", "HEAD") },
    ),
  });
}

/** The request of a case: URL (raw, as written) and fetch options. */
export function buildHostRequest(
  origin: string,
  route: HostRoute,
  c: HostCase,
  targets: HostTargets,
): { url: string; init: RequestInit; cookieName: string } {
  let path = route.path;
  for (const name of route.params) {
    const choice = c.params[name]!;
    const real =
      choice === "own" ? targets.own(route, name) : choice === "foreign" ? targets.foreign(route, name) : undefined;
    const value = typeof choice === "object" ? choice.raw : real !== undefined ? encodeURIComponent(real) : "unknown";
    // Empty segments are another route; a value must keep its segment.
    path = path.replace(`:${name}`, value || "-");
  }
  const query = c.query.map(([k, v]) => `${k}=${v}`).join("&");
  const cookie = targets.cookies(route)[c.cookie] ?? targets.cookies(route)[0]!;
  const headers: Record<string, string> = {};
  if (cookie.header) headers.cookie = cookie.header;
  if (c.csrf === "valid") headers["x-csrf-token"] = targets.csrf();
  else if (typeof c.csrf === "object") headers["x-csrf-token"] = safeHeader(c.csrf.raw);
  if (c.acceptLanguage) headers["accept-language"] = c.acceptLanguage;
  if (c.crossSite) Object.assign(headers, { "sec-fetch-site": "cross-site", origin: "https://elsewhere.example" });
  const method = c.otherMethod ?? route.method;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (c.body.kind === "form" || c.body.kind === "json") {
    body = c.body.text;
    headers["content-type"] = c.body.contentType;
  } else if (c.body.kind === "raw") {
    body = typeof c.body.bytes === "string" ? c.body.bytes : new Uint8Array(c.body.bytes);
    if (c.body.contentType) headers["content-type"] = c.body.contentType;
  }
  if (method === "GET" || method === "HEAD") body = undefined;
  return {
    url: `${origin}${path}${query ? `?${query}` : ""}`,
    init: { method, headers, redirect: "manual", ...(body !== undefined && { body }) },
    cookieName: cookie.name,
  };
}

/** A header value fetch will send: Latin-1 without controls (what a hostile client still can send). */
const safeHeader = (text: string) => text.replace(/[^\x20-\x7e]/g, "?").slice(0, 4_000);

/** One line that names a case for a failure message (long values cut). */
export function describeHostCase(req: { url: string; init: RequestInit; cookieName: string }): string {
  const body = req.init.body;
  const bodyText =
    typeof body === "string" ? body.slice(0, 200) : body instanceof Uint8Array ? `<${body.length} bytes>` : "";
  const headers = { ...(req.init.headers as Record<string, string>) };
  if (headers.cookie) headers.cookie = `${req.cookieName}: ${headers.cookie.slice(0, 80)}`;
  return `${req.init.method} ${req.url.slice(0, 300)} ${JSON.stringify(headers).slice(0, 400)} ${JSON.stringify(bodyText)}`;
}
