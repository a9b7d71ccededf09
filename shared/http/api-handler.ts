import { systemClock } from "#shared/clock.ts";
import type { Admission, AdmissionMemory } from "./admit.ts";
import type { ApiFunction, ApiRequest, ApiResult, EarlyApiFunction, PublicApiFunction } from "./api-types.ts";
import { corsHeaders } from "./cors-headers.ts";
import { type ProxyHandler, requestOf } from "./edge-context.ts";
import { edgeChain } from "./edge-chain.ts";
import { keyAgeHeaders, settledPrincipal } from "./key-age-headers.ts";
import { admission } from "./middleware/admission.ts";
import { apiErrorAnswer } from "./middleware/error-response.ts";
import { send } from "./send.ts";
import { toProxy } from "./to-proxy.ts";

export type { ProxyHandler } from "./edge-context.ts";

/** The API's view of a proxy event: the shared request plus the route's path parameters. */
export const apiRequest = (request: Omit<ApiRequest, "path">): ApiRequest => ({
  ...request,
  path: (name) => request.event.pathParameters?.[name] ?? "",
});

/**
 * The API's parts of the shared chain (edge-chain.ts): CORS and, for responses to an old
 * application key, the rotation warning (README.md#authentication) on every answer; errors as the error
 * body (README.md#errors) (apiErrorAnswer); the route's path parameters on the request; then admission: the
 * caller's workspace and the per-workspace class limit (shared/limits/README.md#rate-limits), before any work
 * (skipped for routes the route table marks public). Page quotas are checked by the generation domain,
 * once the number of files is known.
 */
function chain(
  fn: (req: ApiRequest) => Promise<ApiResult>,
  opts: { early?: boolean; streaming?: boolean; memory?: AdmissionMemory },
) {
  const streaming = opts.streaming ?? false;
  const handler = edgeChain<ApiRequest>(
    {
      headers: async (context) => ({
        ...corsHeaders,
        ...keyAgeHeaders(await settledPrincipal(context.request), systemClock.now()),
      }),
      errors: apiErrorAnswer,
      request: apiRequest,
      steps: [admission({ early: opts.early ?? false, memory: opts.memory })],
      // Sync generation (the early handlers) must time out as README.md#errors says, with the gateway's 504;
      // middy's early time-out would answer 500 INTERNAL_ERROR a few milliseconds before it.
      timeoutEarlyInMillis: opts.early ? 0 : 5,
    },
    async (_event, context) => {
      const request = requestOf(context);
      return toProxy(await fn(request), { lang: request.lang, streaming });
    },
  );
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
 * `streaming` sends the body through Lambda response streaming (downloads: OpenAPI downloadRequest ZIPs
 * of up to 100 PDFs, one chunk in memory) and runs the after-answer work once it is sent.
 * `memory`: what admission remembers between the container's requests (admit.ts); made with the
 * chain when omitted. Sync generation passes its own, which its early work reads too.
 */
export interface ApiHandlerOptions {
  caller?: "required" | "early" | "none";
  streaming?: boolean;
  memory?: AdmissionMemory;
}

/**
 * The Lambda handler of one API route (the route table in shared/definitions/routes.ts says
 * which): `apiHandler(fn)` for an authenticated route, `apiHandler(options, fn)` otherwise.
 */
export function apiHandler(fn: ApiFunction): ProxyHandler;
export function apiHandler(opts: { caller?: "required"; streaming?: boolean }, fn: ApiFunction): ProxyHandler;
export function apiHandler(
  opts: { caller: "early"; streaming?: boolean; memory?: AdmissionMemory },
  fn: EarlyApiFunction,
): ProxyHandler;
export function apiHandler(opts: { caller: "none"; streaming?: boolean }, fn: PublicApiFunction): ProxyHandler;
export function apiHandler(
  first: ApiHandlerOptions | ApiFunction,
  second?: ApiFunction | EarlyApiFunction | PublicApiFunction,
): ProxyHandler {
  const [opts, fn] = typeof first === "function" ? [{}, first] : [first, second!];
  const streaming = opts.streaming ?? false;
  switch (opts.caller ?? "required") {
    case "early":
      return chain((req) => (fn as EarlyApiFunction)(withAdmission(req)), {
        early: true,
        streaming,
        memory: opts.memory,
      });
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
