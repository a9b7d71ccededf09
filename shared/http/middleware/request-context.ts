import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { type Language, pickLanguage } from "#shared/errors/language.ts";
import { parseCookies } from "#shared/web/cookies.ts";
import type { EdgeContext, EdgeResponse } from "../edge-context.ts";

/** The request as every edge reads it: headers ignoring case, query, cookies, body, language. */
export interface EdgeRequest {
  event: APIGatewayProxyEvent;
  lang: Language;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  cookie(name: string): string | undefined;
  /** The body as text (API Gateway base64-encodes bodies of binary media types). */
  bodyText(): string | null;
  /** The body's bytes (a zip upload), whatever the encoding it arrived in. */
  bodyBytes(): Buffer | null;
  /** Time left before the function's (and the gateway's) deadline. */
  remainingMs(): number;
}

/** Reads an API Gateway proxy event; the language is Accept-Language's (an edge may refine it). */
export function readRequest(event: APIGatewayProxyEvent, context: Context): EdgeRequest {
  // API Gateway keeps the client's spelling of header names.
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && value !== null) headers.set(name.toLowerCase(), value);
  }
  const header = (name: string) => headers.get(name.toLowerCase());
  const cookies = parseCookies(header("cookie"));
  return {
    event,
    lang: pickLanguage(header("accept-language")),
    header,
    query: (name) => event.queryStringParameters?.[name] ?? undefined,
    cookie: (name) => cookies.get(name),
    bodyText: () =>
      event.isBase64Encoded && event.body ? Buffer.from(event.body, "base64").toString("utf8") : event.body,
    bodyBytes: () => (event.body ? Buffer.from(event.body, event.isBase64Encoded ? "base64" : "utf8") : null),
    remainingMs: () => context.getRemainingTimeInMillis?.() ?? 29_000,
  };
}

/**
 * Parses the request once and hands it to the later middlewares and the handler on the
 * context (`context.request`). `extend` adds what one edge's handlers need besides.
 */
export function requestContext<R extends EdgeRequest>(
  extend: (request: EdgeRequest) => R,
): MiddlewareObj<APIGatewayProxyEvent, EdgeResponse, Error, EdgeContext<R, unknown>> {
  return {
    before: (handler) => {
      handler.context.request = extend(readRequest(handler.event, handler.context));
    },
  };
}
