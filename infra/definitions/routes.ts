import type { FunctionId } from "./functions.ts";

/** Rate-limit classes of spec 8; `none` bypasses limits (health check). */
export type RateClass = "sync" | "async" | "retrieval" | "status" | "none";

export interface RouteDefinition {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** API Gateway resource path, below `{base_url}` (which ends in /v1). */
  path: string;
  function: FunctionId;
  rateClass: RateClass;
  /** `bearer-or-session`: management routes (spec 4.11, 4.12) take a token or a first-party login session, never an appkey. */
  auth: "appkey-or-bearer" | "bearer-or-session" | "none";
  /** Integration time-out; sync generation needs the raised 60 s quota (spec 8). */
  timeoutSeconds: number;
  /** Excluded from access logs (spec 4.10). */
  quiet?: boolean;
  /**
   * The handler streams its body (Lambda response streaming; API Gateway STREAM transfer
   * mode): downloads without buffering, sync generation with work after the answer.
   */
  streaming?: boolean;
}

const route = (
  method: RouteDefinition["method"],
  path: string,
  fn: FunctionId,
  rateClass: RateClass,
  extra: Partial<RouteDefinition> = {},
): RouteDefinition => ({ method, path, function: fn, rateClass, auth: "appkey-or-bearer", timeoutSeconds: 29, ...extra });

/** The route table of the API, shared by the CDK stack and the local gateway. */
export const routes: RouteDefinition[] = [
  route("GET", "/health/check", "health-check", "none", { auth: "none", quiet: true }),
  route("GET", "/openapi.json", "get-openapi", "none", { auth: "none" }),
  route("GET", "/file/designs", "list-designs", "retrieval"),
  route("GET", "/file/designs/{designId}/thumbnail", "get-design-thumbnail", "retrieval"),
  route("GET", "/file/design/parameter/{designId}", "get-design-parameters", "retrieval"),
  // Streamed so the files can be stored after the answer (generate-sync.ts).
  route("POST", "/file/sync/single", "generate-sync", "sync", { timeoutSeconds: 60, streaming: true }),
  route("POST", "/file/sync/multiple", "generate-sync", "sync", { timeoutSeconds: 60, streaming: true }),
  route("POST", "/file/async/single", "generate-async", "async"),
  route("POST", "/file/async/multiple", "generate-async", "async"),
  route("GET", "/file/status/{requestId}", "get-status", "status"),
  route("GET", "/file/download/{requestId}", "download-files", "retrieval", { streaming: true }),
  route("GET", "/file/download/{requestId}/{fileId}", "download-files", "retrieval", { streaming: true }),
  ...managementRoutes(),
];

/** spec 4.11 and 4.12; not in a spec 8 rate class (authenticated administration, low volume). */
function managementRoutes(): RouteDefinition[] {
  const manage = (method: RouteDefinition["method"], path: string, fn: FunctionId) => route(method, path, fn, "none", { auth: "bearer-or-session" });
  const endpoints = "/workspace/{workspaceId}/webhook-endpoints";
  return [
    manage("GET", endpoints, "list-webhook-endpoints"),
    manage("POST", endpoints, "create-webhook-endpoint"),
    manage("PATCH", `${endpoints}/{endpointId}`, "update-webhook-endpoint"),
    manage("DELETE", `${endpoints}/{endpointId}`, "delete-webhook-endpoint"),
    manage("POST", `${endpoints}/{endpointId}/secret/regenerate`, "regenerate-webhook-secret"),
    manage("GET", `${endpoints}/{endpointId}/secret`, "read-webhook-secret"),
    manage("PATCH", "/workspace/webhook", "set-workspace-webhook"),
    manage("PATCH", "/workspace/{workspaceId}/webhook", "set-workspace-webhook"),
    manage("POST", "/workspace/{workspaceId}/application-token/regenerate", "rotate-application-key"),
  ];
}

/**
 * Paths of `{auth_url}` (spec 4.13). In AWS the auth function owns its whole API; the local
 * gateway serves everything on one origin and sends these prefixes to it (proxy events, as in AWS).
 */
export const authPathPrefixes = ["/.well-known/", "/oauth/", "/jwks", "/interaction/", "/public/templates"] as const;

/** Media types API Gateway must pass through as binary. */
export const binaryMediaTypes = ["application/pdf", "application/zip", "image/png", "application/octet-stream"];

/** spec 4.14: CORS, owned by the HTTP edge so handlers and the gateway agree. */
export { cors } from "#shared/http/cors.ts";
