import type { FunctionId } from "./functions.ts";
import type { RateClass } from "./rate-classes.ts";

export interface RouteDefinition {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** API Gateway resource path, below `{base_url}` (which ends in /v1). */
  path: string;
  function: FunctionId;
  /**
   * The rate-limit class (shared/limits/README.md#rate-limits), applied by admission; `none` bypasses limits
   * (health check).
   */
  rateClass: RateClass | "none";
  /**
   * Read by admission: `none` routes run without a caller (no key, no rate limit).
   * `bearer-or-session`: management routes (a Bearer token or the first-party login session).
   */
  auth: "appkey-or-bearer" | "bearer-or-session" | "none";
  /**
   * Integration time-out; sync generation needs the raised 60 s quota (see
   * shared/limits/README.md#service-limits).
   */
  timeoutSeconds: number;
  /** Excluded from access logs (OpenAPI healthCheck). */
  quiet?: boolean;
  /**
   * The handler streams its body (Lambda response streaming; API Gateway STREAM transfer
   * mode): downloads without buffering, sync generation with work after the answer.
   */
  streaming?: boolean;
  /** The body must be a JSON object: API Gateway refuses anything else before the Lambda runs. */
  jsonBody?: boolean;
}

const route = (
  method: RouteDefinition["method"],
  path: string,
  fn: FunctionId,
  rateClass: RateClass | "none",
  extra: Partial<RouteDefinition> = {},
): RouteDefinition => ({
  method,
  path,
  function: fn,
  rateClass,
  auth: "appkey-or-bearer",
  timeoutSeconds: 29,
  ...extra,
});

/** The route table of the API, shared by the CDK stack and the local gateway. */
export const routes: RouteDefinition[] = [
  route("GET", "/health/check", "health-check", "none", { auth: "none", quiet: true }),
  route("GET", "/openapi.json", "get-openapi", "none", { auth: "none" }),
  route("GET", "/file/designs", "list-designs", "retrieval"),
  route("GET", "/file/designs/{designId}/thumbnail", "get-design-thumbnail", "retrieval"),
  route("GET", "/file/design/parameter/{designId}", "get-design-parameters", "retrieval"),
  // Streamed so the files can be stored after the answer (sync-generation.ts).
  route("POST", "/file/sync/single", "generate-sync", "sync", { timeoutSeconds: 60, streaming: true, jsonBody: true }),
  route("POST", "/file/sync/multiple", "generate-sync", "sync", {
    timeoutSeconds: 60,
    streaming: true,
    jsonBody: true,
  }),
  route("POST", "/file/async/single", "generate-async", "async", { jsonBody: true }),
  route("POST", "/file/async/multiple", "generate-async", "async", { jsonBody: true }),
  route("GET", "/file/status/{requestId}", "get-status", "status"),
  route("GET", "/file/download/{requestId}", "download-files", "retrieval", { streaming: true }),
  route("GET", "/file/download/{requestId}/{fileId}", "download-files", "retrieval", { streaming: true }),
  route("GET", "/file/download/{requestId}/{fileId}/einvoice", "download-files", "retrieval", { streaming: true }),
  // Kept records (shared/records/README.md#the-api): reads only, a record is never changed through any route.
  route("GET", "/records", "record-routes", "retrieval", { streaming: true }),
  route("GET", "/records/export", "record-routes", "retrieval", { streaming: true }),
  route("GET", "/records/verify", "record-routes", "retrieval", { streaming: true }),
  route("GET", "/records/{recordId}/pdf", "record-routes", "retrieval", { streaming: true }),
  ...managementRoutes(),
  ...designRoutes(),
];

/**
 * Management routes (OpenAPI rotateApplicationKey, the webhook-endpoint and signing-identity operations); not in a rate class
 * (shared/limits/README.md#rate-limits) (authenticated administration, low volume).
 */
function managementRoutes(): RouteDefinition[] {
  const manage = (method: RouteDefinition["method"], path: string, fn: FunctionId) =>
    route(method, path, fn, "none", { auth: "bearer-or-session" });
  const endpoints = "/workspace/{workspaceId}/webhook-endpoints";
  const identities = "/workspace/{workspaceId}/signing-identities";
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
    manage("GET", identities, "list-signing-identities"),
    manage("POST", identities, "create-signing-identity"),
    manage("DELETE", `${identities}/{identityId}`, "delete-signing-identity"),
    manage("GET", "/workspace/{workspaceId}/record-retention", "get-record-retention"),
    manage("PUT", "/workspace/{workspaceId}/record-retention", "set-record-retention"),
  ];
}

/**
 * The design API and the gallery's authenticated routes (shared/authoring/README.md): a Bearer
 * token or the login session, never an appkey. Routes that render (create, publish, preview) run
 * in the Chromium function `design-render`; the others in `design-routes`. Every route that checks a
 * bundle counts toward a rate class (shared/limits/README.md#rate-limits), admitted before any work:
 * a preview toward `preview`; create, publish and the draft's save and read toward `design-write`.
 */
function designRoutes(): RouteDefinition[] {
  const read = (method: RouteDefinition["method"], path: string, rateClass: RateClass | "none" = "none") =>
    route(method, path, "design-routes", rateClass, { auth: "bearer-or-session" });
  const render = (method: RouteDefinition["method"], path: string, rateClass: RateClass | "none" = "none") =>
    route(method, path, "design-render", rateClass, { auth: "bearer-or-session" });
  const design = "/designs/{designId}";
  return [
    read("GET", "/designs"),
    render("POST", "/designs", "design-write"),
    render("POST", "/designs/preview", "preview"),
    read("GET", design),
    read("PATCH", design),
    read("DELETE", design),
    read("GET", `${design}/versions`),
    render("POST", `${design}/versions`, "design-write"),
    read("GET", `${design}/versions/{version}`),
    read("GET", `${design}/versions/{version}/bundle`),
    read("GET", `${design}/draft`, "design-write"),
    read("PUT", `${design}/draft`, "design-write"),
    read("DELETE", `${design}/draft`),
    read("POST", "/templates"),
    read("GET", "/templates/{templateId}"),
    read("GET", "/templates/{templateId}/bundle"),
    read("DELETE", "/templates/{templateId}"),
  ];
}

/**
 * Paths of `{auth_url}` (see shared/identity/README.md#auth_url). In AWS the auth function owns its whole API;
 * the local gateway serves everything on one origin and sends these prefixes to it (proxy events, as in AWS).
 */
export const authPathPrefixes = [
  "/.well-known/",
  "/oauth/",
  "/jwks",
  "/interaction/",
  "/public/templates",
  // A template's thumbnail: /public/templates/{id}/thumbnail (shared/identity/public-templates.ts).
  "/public/templates/",
] as const;

/**
 * The route an API Gateway proxy event was sent for, by method and `resource`. The main API
 * names resources below `/v1`; a quiet API (mapped at `v1/<segment>`) names them without
 * their first segment (`/check` for `/health/check`, see infra/stack/api.ts).
 */
export function findRoute(method: string, resource: string): RouteDefinition | undefined {
  const same = routes.filter((r) => r.method === method);
  const main = resource.replace(/^\/v1(?=\/)/, "");
  return (
    same.find((r) => r.path === main) ??
    same.find((r) => r.quiet && `/${r.path.split("/").filter(Boolean).slice(1).join("/")}` === resource)
  );
}

/**
 * Media types API Gateway must pass through as binary; `multipart/form-data` for the site's
 * bundle-zip upload form, whose zip bytes would not survive a text body.
 */
export const binaryMediaTypes = [
  "application/pdf",
  "application/zip",
  "image/png",
  "application/octet-stream",
  "multipart/form-data",
];
