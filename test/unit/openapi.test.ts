import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { routes } from "#shared/definitions/routes.ts";
import { buildOpenApiDocument } from "#shared/openapi/document.ts";
import { singleRequestSchema } from "#shared/generation/requests/index.ts";
import { createEndpointBody } from "#shared/webhooks/endpoint-schemas.ts";
import { routes as designApiRoutes } from "../../functions/api/design-routes.ts";
import { routes as designRenderRoutes } from "../../functions/api/design-render.ts";

/** The served OpenAPI document: valid OpenAPI 3.1, every route in it, schemas usable. */

/** The design API's operation of a route (its handler's own table), undefined for every other route. */
const designOperation = (route: { method: string; path: string }) =>
  [...designApiRoutes, ...designRenderRoutes].find((d) => d.method === route.method && d.path === route.path)
    ?.operation;
/**
 * The Bearer scopes that allow a design operation (shared/auth/design-access.ts): a write scope also
 * reads; sharing a template needs templates:write and a scope that reads designs (all of an entry).
 */
const scopesOf = (operation: string) =>
  operation === "templates:share"
    ? ["templates:write designs:read", "templates:write designs:write"]
    : operation.endsWith(":read")
      ? [operation, operation.replace(":read", ":write")]
      : [operation];

const urls = { baseUrl: "https://api.example.test/v1", authUrl: "https://auth.example.test" };
const doc = buildOpenApiDocument(routes, urls) as {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; security: unknown[]; requestBody?: unknown }>>;
  components: { schemas: Record<string, object> };
};

describe("OpenAPI document", () => {
  it("validates as OpenAPI 3.1 with a validator library and every $ref resolves", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(() => validator.resolveRefs()).not.toThrow();
    // The validator is not vacuous: a broken operation fails it.
    const broken = structuredClone(doc) as unknown as { paths: Record<string, unknown> };
    broken.paths["/broken"] = { get: { responses: { 200: { content: {} } } } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r]))("lists %s with its authentication", (_key, route) => {
    const op = doc.paths[route.path]?.[route.method.toLowerCase()];
    expect(op, `${route.method} ${route.path}`).toBeDefined();
    // The design API takes its own scopes, one requirement each (any one suffices); records records:read; the rest pdf:generate.
    const operation = designOperation(route);
    expect(operation !== undefined, "a design API route has its handler's operation").toBe(
      route.function === "design-routes" || route.function === "design-render",
    );
    // Kept records take records:read (shared/auth/route-scopes.ts).
    const own = route.function === "record-routes" ? ["records:read"] : ["pdf:generate"];
    const bearer = (operation ? scopesOf(operation) : own).map((scope) => ({ oauth2: scope.split(" ") }));
    const expected = {
      none: [],
      "appkey-or-bearer": [{ appkey: [] }, ...bearer],
      "bearer-or-session": [...bearer, { session: [] }],
    };
    expect(op!.security).toEqual(expected[route.auth]);
  });

  it("has nothing the route table does not have, and unique operation ids", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents the large-ZIP redirect of the request download (302 with Location) and the sync 400s", () => {
    const ops = doc.paths as unknown as Record<
      string,
      Record<string, { responses: Record<string, { headers?: Record<string, { schema: unknown }> }> }>
    >;
    const download = ops["/file/download/{requestId}"]!.get!.responses;
    expect(Object.keys(download)).toEqual(expect.arrayContaining(["200", "302", "404"]));
    expect(download["302"]!.headers!.Location!.schema).toEqual({ type: "string" });
    expect(ops["/file/download/{requestId}/{fileId}"]!.get!.responses["302"]).toBeUndefined();
    expect(Object.keys(ops["/file/sync/multiple"]!.post!.responses)).toContain("400");
  });

  it("documents the front layer's 413/504 without the error body, WWW-Authenticate on 401 and Retry-After on 429", () => {
    const ops = doc.paths as unknown as Record<
      string,
      Record<string, { responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }> }>
    >;
    const sync = ops["/file/sync/single"]!.post!.responses;
    for (const status of ["413", "504"]) {
      expect(sync[status], status).toBeDefined();
      expect(sync[status]!.content, status).toBeUndefined();
    }
    expect(ops["/file/async/multiple"]!.post!.responses["413"]).toBeDefined();
    expect(ops["/file/async/multiple"]!.post!.responses["504"]).toBeUndefined();
    expect(Object.keys(sync["401"]!.headers!)).toEqual(["WWW-Authenticate"]);
    expect(Object.keys(sync["429"]!.headers!)).toEqual(["Retry-After"]);
  });

  it("documents the design API: zip bodies beside JSON, PDF or PNG previews, the session's X-Workspace-Id, client tokens", () => {
    type Op = {
      description?: string;
      parameters?: { name: string; in: string }[];
      requestBody?: { content: Record<string, unknown> };
      responses: Record<string, { content?: Record<string, unknown> }>;
    };
    const ops = doc.paths as unknown as Record<string, Record<string, Op>>;
    for (const [path, method] of [
      ["/designs", "post"],
      ["/designs/{designId}/versions", "post"],
    ] as const)
      expect(Object.keys(ops[path]![method]!.requestBody!.content), path).toEqual([
        "application/json",
        "application/zip",
      ]);
    expect(Object.keys(ops["/designs/preview"]!.post!.responses["200"]!.content!)).toEqual([
      "application/pdf",
      "image/png",
    ]);
    expect(Object.keys(ops["/designs/{designId}/versions/{version}/bundle"]!.get!.responses["200"]!.content!)).toEqual([
      "application/zip",
    ]);
    for (const route of routes.filter((r) => designOperation(r))) {
      const op = ops[route.path]![route.method.toLowerCase()]!;
      expect(op.parameters, route.path).toContainEqual(
        expect.objectContaining({ name: "X-Workspace-Id", in: "header" }),
      );
      expect(op.description, route.path).toMatch(/client-credentials token acts by its scopes alone/);
      expect(op.description, route.path).toContain("X-Workspace-Id");
    }
    // The JSON bodies' schemas say what readBundleBody reads: a bundle or a copy on create, a bundle or the draft on publish.
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas))
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    const create = ajv.getSchema("#/components/schemas/CreateDesignBody")!;
    const publish = ajv.getSchema("#/components/schemas/PublishDesignVersionBody")!;
    const form = { label: "L", template: "<p>{{ a }}</p>", parameters: [{ name: "a", type: "text", label: "A" }] };
    expect(create({ ...form, note: "n" })).toBe(true);
    expect(create({ fromTemplate: "T1", label: "Copy" })).toBe(true);
    expect(create({ from: "draft" })).toBe(false);
    expect(create({ ...form, colour: "red" })).toBe(false);
    expect(publish({ from: "draft", expectedLatestVersion: 3 })).toBe(true);
    expect(publish({ ...form, expectedLatestVersion: 0 })).toBe(true);
    expect(publish({ fromTemplate: "T1" })).toBe(false);
    expect(publish({ from: "draft", expectedLatestVersion: -1 })).toBe(false);
  });

  it("refuses to build when a route has no documentation", () => {
    expect(() =>
      buildOpenApiDocument([...routes, { method: "GET", path: "/undocumented", auth: "none" }], urls),
    ).toThrow(/GET \/undocumented has no OpenAPI documentation/);
  });

  it("carries JSON Schema 2020-12 that accepts and refuses what the handler's zod schema does", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas))
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    const check = ajv.getSchema("#/components/schemas/CreateWebhookEndpointBody")!;
    const bodies = [
      { url: "https://hooks.example.com/a" },
      { url: "https://x.example", designFilterType: "selected", targetDesignIds: ["D1"] },
      { url: "" },
      { url: "https://x", colour: "red" },
      { designFilterType: "all" },
      { url: "https://x", targetDesignIds: "D1" },
    ];
    for (const body of bodies)
      expect(check(body), JSON.stringify(body)).toBe(createEndpointBody.safeParse(body).success);
  });

  it("describes the generation bodies with the generation handlers' own schema", () => {
    expect(doc.paths["/file/sync/single"]!.post!.requestBody).toEqual({
      required: true,
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/GenerateSyncSingleBody" },
          // The example request of the API reference (shared/openapi/examples.ts).
          examples: { generateSyncSingle: { value: expect.any(Object) } },
        },
      },
    });
    const ajv = new Ajv2020({ strict: false });
    const check = ajv.compile(doc.components.schemas.GenerateSyncSingleBody!);
    const content = { fileName: "a.pdf", params: {} };
    const bodies = [
      { designId: "D", version: 1, content },
      { designId: "D", version: 1.5, content },
      { designId: "D", version: 1, content: { ...content, shareType: "04" } },
      { designId: "D", content },
    ];
    for (const body of bodies)
      expect(check(body), JSON.stringify(body)).toBe(singleRequestSchema.safeParse(body).success);
  });
});
