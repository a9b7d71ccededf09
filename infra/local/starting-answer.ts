import type { IncomingMessage, ServerResponse } from "node:http";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { corsHeaders } from "#shared/http/cors.ts";
import { buildErrorBody } from "#shared/http/error-body.ts";
import { pickLanguage } from "#shared/errors/language.ts";

/**
 * What the local gateway answers while the stack is still starting (issue 18): a spec 7.1
 * body in the caller's language and `Retry-After`, so a script polling the health check
 * knows that once it gets 200, local.json is there.
 */
export function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  req.resume(); // the body is not wanted
  const lang = pickLanguage(req.headers["accept-language"]);
  const body = buildErrorBody(
    new PlatenError("SERVICE_STARTING"),
    lang,
    `http://localhost:${req.socket.localPort ?? 0}`,
  );
  const json = Buffer.from(JSON.stringify(body));
  res.writeHead(503, {
    ...corsHeaders,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Language": lang,
    "Retry-After": "1",
    "Content-Length": String(json.length),
  });
  res.end(json);
}
