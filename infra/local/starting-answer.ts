import type { IncomingMessage, ServerResponse } from "node:http";
import { pickLanguage } from "#shared/errors/language.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { corsHeaders } from "#shared/http/cors-headers.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";

/**
 * What the local gateway answers while the stack is still starting: an error
 * body (README.md#errors) in the caller's language and `Retry-After`, so a script polling the health check
 * knows that once it gets 200, local.json is there.
 */
export function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  answerGatewayError(req, res, new PlatenError("SERVICE_STARTING"), { "Retry-After": "1" });
}

/**
 * An error the gateway answers itself (starting, no such route, wrong method) with the error
 * body (README.md#errors) the handlers answer: in the caller's language, docs on this origin, CORS headers.
 */
export function answerGatewayError(
  req: IncomingMessage,
  res: ServerResponse,
  error: PlatenError,
  headers: Record<string, string> = {},
): void {
  req.resume(); // the body is not wanted
  const lang = pickLanguage(req.headers["accept-language"]);
  const body = buildErrorBody(error, lang, `http://localhost:${req.socket.localPort ?? 0}`);
  const json = Buffer.from(JSON.stringify(body));
  res.writeHead(error.status, {
    ...corsHeaders,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Language": lang,
    ...headers,
    "Content-Length": String(json.length),
  });
  res.end(json);
}
