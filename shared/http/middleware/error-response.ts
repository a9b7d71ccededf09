import { config } from "#shared/aws/config.ts";
import { pickLanguage } from "#shared/errors/language.ts";
import type { PlatenError } from "#shared/errors/platen-error.ts";
import type { ApiRequest } from "../api-types.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import type { ErrorAnswer } from "./error-boundary.ts";

/**
 * The API's answer to an error (errorBoundary shows it): the error body (README.md#errors) in the caller's
 * language, Retry-After for limits, and a bearer challenge on 401. CORS and the key-age
 * warning (a refusal after authentication still tells an old key's owner to rotate it) are
 * added by the chain's header middlewares.
 */
export const apiErrorAnswer: ErrorAnswer<ApiRequest> = (known: PlatenError, request, event) => {
  const lang = request?.lang ?? pickLanguage(headerOf(event.headers, "accept-language"));
  const body = buildErrorBody(known, lang, config().siteUrl);
  return {
    head: {
      statusCode: known.status,
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Language": lang,
        ...(known.retryAfter !== undefined && { "Retry-After": String(known.retryAfter) }),
        ...(known.status === 401 && { "WWW-Authenticate": bearerChallenge(event.headers) }),
      },
      body: JSON.stringify(body),
    },
  };
};

type Headers = Record<string, string | undefined> | null | undefined;

const headerOf = (headers: Headers, wanted: string): string | undefined =>
  Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === wanted)?.[1];

/**
 * A 401 names the scheme the API accepts besides `appkey` (RFC 9110 §11.6.1, RFC 6750 §3):
 * with `invalid_token` when a bearer token was presented and refused.
 */
function bearerChallenge(headers: Headers): string {
  const presented = /^bearer\s/i.test(headerOf(headers, "authorization") ?? "");
  return presented ? 'Bearer realm="platen", error="invalid_token"' : 'Bearer realm="platen"';
}
