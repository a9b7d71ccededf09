import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { systemClock } from "#shared/clock.ts";
import type { Admission } from "./admit.ts";
import type {
  ApiContext,
  ApiFunction,
  ApiRequest,
  ApiResult,
  EarlyApiFunction,
  PublicApiFunction,
} from "./api-types.ts";
import { corsHeaders } from "./cors.ts";
import { type EdgeResponse, type ProxyHandler, requestOf } from "./edge-context.ts";
import { keyAgeHeaders, settledPrincipal } from "./key-age-headers.ts";
import { admission } from "./middleware/admission.ts";
import { defaultHeaders } from "./middleware/default-headers.ts";
import { errorBoundary } from "./middleware/error-boundary.ts";
import { apiErrorAnswer } from "./middleware/error-response.ts";
import { observability } from "./middleware/observability.ts";
import { requestContext } from "./middleware/request-context.ts";
import { send } from "./send.ts";
import { toProxy } from "./to-proxy.ts";

export type { ProxyHandler } from "./edge-context.ts";

/** The API's view of a proxy event: the shared request plus the route's path parameters. */
export const apiRequest = (request: Omit<ApiRequest, "path">): ApiRequest => ({
  ...request,
  path: (name) => request.event.pathParameters?.[name] ?? "",
});

/**
 * Assembles the API's middleware chain in a fixed order. `before` runs top to bottom,
 * `after` and `onError` bottom to top:
 *   1. CORS headers    – on every answer, errors included (so registered before the boundary)
 *   2. key age         – responses to an old application key carry the spec 5 rotation warning
 *   3. errorBoundary   – every error becomes the spec 7.1 body (apiErrorAnswer)
 *   4. observability   – the invocation's log keys; publishes its metrics at the end
 *   5. requestContext  – headers, query, cookies, path params, language, on `context.request`
 *   6. admission       – the caller's workspace and spec 8's per-workspace class limit,
 *                        before any work (skipped for routes the route table marks public)
 * Page quotas are checked by the generation domain, once the number of files is known.
 */
function chain(
  fn: (req: ApiRequest) => Promise<ApiResult>,
  opts: { early?: boolean; streaming?: boolean },
): ProxyHandler {
  const streaming = opts.streaming ?? false;
  // Sync generation (the early handlers) must time out as spec 7.2 says, with the gateway's 504;
  // middy's early time-out would answer 500 INTERNAL_ERROR a few milliseconds before it.
  const timeoutEarlyInMillis = opts.early ? 0 : 5;
  const handler = middy<APIGatewayProxyEvent, EdgeResponse, Error, ApiContext>({ timeoutEarlyInMillis })
    .use(defaultHeaders(() => corsHeaders))
    .use(
      defaultHeaders<ApiContext>(async (context) =>
        keyAgeHeaders(await settledPrincipal(context.request), systemClock.now()),
      ),
    )
    .use(errorBoundary(apiErrorAnswer))
    .use(observability())
    .use(requestContext(apiRequest))
    .use(admission({ early: opts.early ?? false }))
    .handler(async (_event: APIGatewayProxyEvent, context: ApiContext) => {
      const request = requestOf(context);
      return toProxy(await fn(request), { lang: request.lang, streaming });
    });
  return send(handler, { streaming });
}

/**
 * What an API handler gets of its caller:
 * - `required` (the default): the authenticated principal, within the rate limit.
 * - `early`: the admission still running (admit.ts), so side-effect-free work (parsing,
 *   templating) starts beside it; the handler awaits `admission.principal` before any work
 *   with effects. Sync generation, whose answer is streamed and whose storage follows it.
 * - `none`: no caller: a route the route table marks `auth: "none"` (health check, the API
 *   description), or a management route that resolves its caller itself.
 * `streaming` sends the body through Lambda response streaming (downloads: spec 4.6 ZIPs
 * of up to 100 PDFs, one chunk in memory) and runs the after-answer work once it is sent.
 */
export interface ApiHandlerOptions {
  caller?: "required" | "early" | "none";
  streaming?: boolean;
}

/**
 * The Lambda handler of one API route (the route table in infra/definitions/routes.ts says
 * which): `apiHandler(fn)` for an authenticated route, `apiHandler(options, fn)` otherwise.
 */
export function apiHandler(fn: ApiFunction): ProxyHandler;
export function apiHandler(opts: { caller?: "required"; streaming?: boolean }, fn: ApiFunction): ProxyHandler;
export function apiHandler(opts: { caller: "early"; streaming?: boolean }, fn: EarlyApiFunction): ProxyHandler;
export function apiHandler(opts: { caller: "none"; streaming?: boolean }, fn: PublicApiFunction): ProxyHandler;
export function apiHandler(
  first: ApiHandlerOptions | ApiFunction,
  second?: ApiFunction | EarlyApiFunction | PublicApiFunction,
): ProxyHandler {
  const [opts, fn] = typeof first === "function" ? [{}, first] : [first, second!];
  const streaming = opts.streaming ?? false;
  switch (opts.caller ?? "required") {
    case "early":
      return chain((req) => (fn as EarlyApiFunction)(withAdmission(req)), { early: true, streaming });
    case "none":
      return chain(fn as PublicApiFunction, { streaming });
    default:
      return chain((req) => (fn as ApiFunction)(withPrincipal(req)), { streaming });
  }
}

/** The request of a handler that needs a caller; a route table saying otherwise is a deployment bug. */
export function withPrincipal(req: ApiRequest): ApiRequest & { principal: NonNullable<ApiRequest["principal"]> } {
  if (!req.principal)
    throw new Error(
      `${req.event.httpMethod} ${req.event.resource} is public in the route table, but its handler needs a caller`,
    );
  return req as ApiRequest & { principal: NonNullable<ApiRequest["principal"]> };
}

/** The request of an early handler: admission has started (authenticated routes always start it). */
function withAdmission(req: ApiRequest): ApiRequest & { admission: Admission } {
  if (!req.admission)
    throw new Error(`${req.event.httpMethod} ${req.event.resource} started no admission, but its handler awaits one`);
  return req as ApiRequest & { admission: Admission };
}
