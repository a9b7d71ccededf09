import type { Readable } from "node:stream";
import type { EdgeResponse } from "./edge-context.ts";

/** What a handler of any edge (API route, site page) returns; `toProxy` turns it into the proxy shape. */
export type EdgeResult = ResultHead &
  (
    | { json: unknown }
    | { body: Buffer; contentType: string }
    | { text: string; contentType: string }
    /** `contentLength` undefined: a body of unknown length, sent chunked (a streamed CSV export). */
    | { stream: Readable; contentLength: number | undefined; contentType: string }
    | { redirect: string }
  );

interface ResultHead {
  status: number;
  headers?: Record<string, string>;
  /** Set-Cookie lines (shared/web/cookies.ts writes them). */
  cookies?: string[];
  /**
   * Work that must finish but need not delay the answer. Streaming routes run it once the
   * response is complete (the invocation lasts until it ends); other routes before answering.
   * It cannot change the response, so it reports its own failures (see runAfterResponse).
   */
  after?: () => Promise<void>;
}

/**
 * The one conversion of a handler's result into an API Gateway proxy response. On a
 * streaming route bytes, text and streams go out as they are (no base64 round trip);
 * otherwise binary bodies are base64 and JSON is text. The chain's header middlewares
 * (CORS, security headers, key age) add their headers afterwards, as defaults.
 */
export function toProxy(result: EdgeResult, opts: { lang: string; streaming: boolean }): EdgeResponse {
  const headers = { "Content-Language": opts.lang, ...result.headers };
  const head = {
    statusCode: result.status,
    ...(result.cookies?.length && { multiValueHeaders: { "Set-Cookie": result.cookies } }),
  };
  const after = result.after && { after: result.after };
  if ("redirect" in result) return { head: { ...head, headers: { ...headers, Location: result.redirect }, body: "" } };
  if ("json" in result) {
    const json = { "Content-Type": "application/json; charset=utf-8", ...headers };
    return { head: { ...head, headers: json, body: JSON.stringify(result.json) }, ...after };
  }
  const [body, length] =
    "stream" in result
      ? [result.stream, result.contentLength]
      : "text" in result
        ? [Buffer.from(result.text, "utf8"), Buffer.byteLength(result.text)]
        : [result.body, result.body.length];
  const typed = {
    "Content-Type": result.contentType,
    ...(length !== undefined && { "Content-Length": String(length) }),
    ...headers,
  };
  if (opts.streaming || !Buffer.isBuffer(body))
    return { head: { ...head, headers: typed, body: "", isBase64Encoded: true }, body, ...after };
  return { head: { ...head, headers: typed, body: body.toString("base64"), isBase64Encoded: true }, ...after };
}
