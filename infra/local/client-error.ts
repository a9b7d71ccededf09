import type { Socket } from "node:net";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { corsHeaders } from "#shared/http/cors.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { type Language, pickLanguage } from "#shared/errors/language.ts";

/** Node's default request-head limit (`--max-http-header-size`), which the local gateway keeps. */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

/**
 * A request Node refuses before the gateway sees it. A head over the limit gets the error body
 * (README.md#errors) with `REQUEST_HEADERS_TOO_LARGE` and the CORS headers, like every other refusal,
 * instead of Node's bare 431 that a browser on another origin cannot even read. The headers were not
 * parsed: the language is read from the bytes Node had received (`rawPacket`), English when they
 * hold no Accept-Language. Anything else keeps Node's own answer (400, or nothing on a broken
 * connection).
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: Buffer }, socket: Socket): void {
  if (!socket.writable || err.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  if (err.code !== "HPE_HEADER_OVERFLOW") {
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    return;
  }
  const error = new PlatenError("REQUEST_HEADERS_TOO_LARGE", { vars: { limit: MAX_REQUEST_HEAD_BYTES / 1024 } });
  const lang = languageOf(err.rawPacket);
  const body = Buffer.from(JSON.stringify(buildErrorBody(error, lang, `http://localhost:${socket.localPort ?? 0}`)));
  const headers = {
    ...corsHeaders,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Language": lang,
    "Content-Length": String(body.length),
    Connection: "close",
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 431 Request Header Fields Too Large\r\n${head}\r\n`), body]));
}

/** The Accept-Language of a request head Node could not parse, as far as it arrived. */
function languageOf(rawPacket: Buffer | undefined): Language {
  const line = rawPacket?.toString("latin1").match(/\r\naccept-language:[ \t]*([^\r\n]*)/i);
  return pickLanguage(line?.[1]);
}
