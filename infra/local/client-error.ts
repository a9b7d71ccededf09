import type { Socket } from "node:net";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { corsHeaders } from "#shared/http/cors-headers.ts";
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
  // Node's parser reports every later chunk of the refused request again: the answer is already sent.
  if (lingering.has(socket)) return;
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
  lingeringClose(
    socket,
    Buffer.concat([Buffer.from(`HTTP/1.1 431 Request Header Fields Too Large\r\n${head}\r\n`), body]),
  );
}

/** Sockets answered early whose remaining input is being read and dropped. */
const lingering = new WeakSet<Socket>();
/** How long, and how much of a body, the gateway keeps reading after answering early. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * Answers, then reads and drops what the client is still sending before closing. Closing a
 * socket whose receive buffer holds unread bytes makes the kernel send a reset, and a client
 * still writing its body (a POST with a long header) then loses the answer to ECONNRESET.
 * The gateway's answer is sent with `Connection: close`, so the client stops at its end of the
 * body; the socket is destroyed when the client closes, after LINGER_MS, or after LINGER_BYTES.
 */
function lingeringClose(socket: Socket, answer: Buffer): void {
  lingering.add(socket);
  let drained = 0;
  const done = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(done, LINGER_MS);
  timer.unref();
  socket.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_BYTES) done();
  });
  socket.once("end", done);
  socket.once("error", done);
  socket.resume();
  socket.end(answer); // half-close: our side is finished, theirs may still be sending
}

/** The Accept-Language of a request head Node could not parse, as far as it arrived. */
function languageOf(rawPacket: Buffer | undefined): Language {
  const line = rawPacket?.toString("latin1").match(/\r\naccept-language:[ \t]*([^\r\n]*)/i);
  return pickLanguage(line?.[1]);
}
