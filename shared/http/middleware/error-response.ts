import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { isPlatenError, PlatenError } from "#shared/errors/platen-error.ts";
import { logger } from "#shared/observability/logger.ts";
import { corsHeaders } from "../cors.ts";
import { buildErrorBody } from "../error-body.ts";
import { keyAgeHeaders, settledPrincipal } from "../key-age-headers.ts";
import { pickLanguage } from "#shared/errors/language.ts";
import { requestsByEvent } from "./request-context.ts";

/**
 * The only place errors become HTTP: catalogue errors get the spec 7.1 body, anything
 * else is logged with its cause (Powertools formats the chain) and answered as a generic INTERNAL_ERROR (no internals).
 */
export function errorResponse(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (handler) => {
      const err = handler.error;
      const known = isPlatenError(err) ? err : new PlatenError("INTERNAL_ERROR", { cause: err });
      if (!isPlatenError(err) || known.status >= 500) {
        logger.error("request failed", err instanceof Error ? err : String(err));
      }
      const lang = requestsByEvent.get(handler.event)?.lang ?? pickLanguage(acceptLanguage(handler.event.headers));
      const body = buildErrorBody(known, lang, config().siteUrl);
      // A refusal after authentication (400, 404, 429…) still tells an old key's owner to rotate it.
      const ageHeaders = keyAgeHeaders(await settledPrincipal(requestsByEvent.get(handler.event)), systemClock.now());
      handler.response = {
        statusCode: known.status,
        headers: {
          ...corsHeaders,
          ...ageHeaders,
          "Content-Type": "application/json; charset=utf-8",
          "Content-Language": lang,
          ...(known.retryAfter !== undefined && { "Retry-After": String(known.retryAfter) }),
          ...(known.status === 401 && { "WWW-Authenticate": bearerChallenge(handler.event.headers) }),
        },
        body: JSON.stringify(body),
      };
    },
  };
}

type Headers = Record<string, string | undefined> | null | undefined;

const headerOf = (headers: Headers, wanted: string): string | undefined =>
  Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === wanted)?.[1];

const acceptLanguage = (headers: Headers) => headerOf(headers, "accept-language");

/**
 * A 401 names the scheme the API accepts besides `appkey` (RFC 9110 §11.6.1, RFC 6750 §3):
 * with `invalid_token` when a bearer token was presented and refused.
 */
function bearerChallenge(headers: Headers): string {
  const presented = /^bearer\s/i.test(headerOf(headers, "authorization") ?? "");
  return presented ? 'Bearer realm="platen", error="invalid_token"' : 'Bearer realm="platen"';
}
