import type { APIGatewayProxyEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { findRoute, routes } from "#shared/definitions/routes.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { admission } from "#shared/http/middleware/admission.ts";
import { requestContext } from "#shared/http/middleware/request-context.ts";
import { apiRequest } from "#shared/http/api-handler.ts";
import type { ApiContext } from "#shared/http/api-types.ts";

/**
 * The rate classes (shared/limits/README.md#rate-limits), written out per route: the route table must say the
 * same.
 */
const SPEC_CLASSES: Record<string, string> = {
  "GET /health/check": "none",
  "GET /file/designs": "retrieval",
  "GET /file/designs/{designId}/thumbnail": "retrieval",
  "GET /file/design/parameter/{designId}": "retrieval",
  "POST /file/sync/single": "sync",
  "POST /file/sync/multiple": "sync",
  "POST /file/async/single": "async",
  "POST /file/async/multiple": "async",
  "GET /file/status/{requestId}": "status",
  "GET /file/download/{requestId}": "retrieval",
  "GET /file/download/{requestId}/{fileId}": "retrieval",
  "GET /file/download/{requestId}/{fileId}/einvoice": "retrieval",
  "GET /records": "retrieval",
  "GET /records/export": "retrieval",
  "GET /records/verify": "retrieval",
  "GET /records/{recordId}/pdf": "retrieval",
  // Not in the rate-class table (shared/limits/README.md#rate-limits): the API description, and management
  // (OpenAPI rotateApplicationKey, shared/webhooks/README.md#managing-endpoints-over-http), whose handlers
  // authenticate the token or session themselves (shared/workspaces/README.md).
  "GET /openapi.json": "none",
  "GET /workspace/{workspaceId}/webhook-endpoints": "none",
  "POST /workspace/{workspaceId}/webhook-endpoints": "none",
  "PATCH /workspace/{workspaceId}/webhook-endpoints/{endpointId}": "none",
  "DELETE /workspace/{workspaceId}/webhook-endpoints/{endpointId}": "none",
  "POST /workspace/{workspaceId}/webhook-endpoints/{endpointId}/secret/regenerate": "none",
  "GET /workspace/{workspaceId}/webhook-endpoints/{endpointId}/secret": "none",
  "PATCH /workspace/webhook": "none",
  "PATCH /workspace/{workspaceId}/webhook": "none",
  "POST /workspace/{workspaceId}/application-token/regenerate": "none",
  "GET /workspace/{workspaceId}/signing-identities": "none",
  "POST /workspace/{workspaceId}/signing-identities": "none",
  "DELETE /workspace/{workspaceId}/signing-identities/{identityId}": "none",
  "GET /workspace/{workspaceId}/record-retention": "none",
  "PUT /workspace/{workspaceId}/record-retention": "none",
  // The design API and the gallery (shared/http/design-handler.ts): every route that checks a bundle counts
  // toward a class, a preview toward `preview`, create, publish and the draft's save and read toward
  // `design-write`; the other routes are authenticated editing, like management.
  "GET /designs": "none",
  "POST /designs": "design-write",
  "POST /designs/preview": "preview",
  "GET /designs/{designId}": "none",
  "PATCH /designs/{designId}": "none",
  "DELETE /designs/{designId}": "none",
  "GET /designs/{designId}/versions": "none",
  "POST /designs/{designId}/versions": "design-write",
  "GET /designs/{designId}/versions/{version}": "none",
  "GET /designs/{designId}/versions/{version}/bundle": "none",
  "GET /designs/{designId}/draft": "design-write",
  "PUT /designs/{designId}/draft": "design-write",
  "DELETE /designs/{designId}/draft": "none",
  "POST /templates": "none",
  "GET /templates/{templateId}": "none",
  "GET /templates/{templateId}/bundle": "none",
  "DELETE /templates/{templateId}": "none",
};

/** Runs the requestContext and admission middlewares on a bare proxy event. */
async function admitted(method: string, resource: string, headers: Record<string, string> = {}) {
  const event = { httpMethod: method, resource, path: resource, headers } as unknown as APIGatewayProxyEvent;
  const handler = { event, context: {} as ApiContext } as never;
  await requestContext(apiRequest).before!(handler);
  await admission({ early: true }).before!(handler);
  return (handler as { context: ApiContext }).context.request!;
}

describe("route table: the one source of rate class and auth mode", () => {
  it("gives every route its rate class, and only the health check and the API description run without a caller", () => {
    const table = Object.fromEntries(routes.map((r) => [`${r.method} ${r.path}`, r.rateClass]));
    expect(table).toEqual(SPEC_CLASSES);
    expect(routes.filter((r) => r.auth === "none").map((r) => r.path)).toEqual(["/health/check", "/openapi.json"]);
  });

  it("finds each route from the resource API Gateway reports, below /v1 or in its quiet API", () => {
    for (const route of routes) expect(findRoute(route.method, `/v1${route.path}`)).toBe(route);
    expect(findRoute("GET", "/check")).toBe(routes.find((r) => r.path === "/health/check"));
    expect(findRoute("POST", "/v1/file/status/{requestId}")).toBeUndefined();
    expect(findRoute("GET", "/file/status/{requestId}")?.rateClass).toBe("status");
    expect(findRoute("GET", "/v1/file/unknown")).toBeUndefined();
  });

  it("admission skips a public route and starts authentication on every other", async () => {
    expect((await admitted("GET", "/v1/health/check")).admission).toBeUndefined();
    expect((await admitted("GET", "/check")).admission).toBeUndefined();
    const status = await admitted("GET", "/v1/file/status/{requestId}");
    await expect(status.admission?.principal).rejects.toThrow(PlatenError);
    await expect(status.admission?.principal).rejects.toMatchObject({ code: "AUTH_HEADER_MISSING" });
    // A resource missing from the table fails closed: a caller is still required.
    const unknown = await admitted("GET", "/v1/file/unknown");
    await expect(unknown.admission?.principal).rejects.toMatchObject({ code: "AUTH_HEADER_MISSING" });
  });
});
