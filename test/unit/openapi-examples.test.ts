import { describe, expect, it } from "vitest";
import { routes } from "#shared/definitions/routes.ts";
import { catalogue, type ErrorCode } from "#shared/errors/catalogue.ts";
import { buildOpenApiDocument, EXAMPLE_EXTENSION, type ExampleExtension } from "#shared/openapi/document.ts";
import { operationExamples } from "#shared/openapi/examples.ts";
import { operationDocs } from "#shared/openapi/operations.ts";
import { errorBody } from "#shared/openapi/response-shapes.ts";

/**
 * Every operation of the OpenAPI document carries an example request and answer (the API
 * reference page `/docs/api` shows them): bodies the handlers' own schemas accept, answers
 * the response schemas accept, error answers with real catalogue codes.
 */

const urls = {
  baseUrl: "https://api.example.test/v1",
  authUrl: "https://auth.example.test",
  siteUrl: "https://site.test",
};
const examples = operationExamples(urls);
const doc = buildOpenApiDocument(routes, urls) as {
  paths: Record<string, Record<string, Operation>>;
};

interface Media {
  examples?: Record<string, { summary?: string; value?: unknown }>;
}
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
  [EXAMPLE_EXTENSION]: ExampleExtension;
}

const entries = routes.map((route) => {
  const opDoc = operationDocs[`${route.method} ${route.path}`]!;
  return [opDoc.operationId, { route, opDoc, example: examples[opDoc.operationId]! }] as const;
});

describe("OpenAPI examples", () => {
  it("exist for every operation and for nothing else", () => {
    const ids = Object.values(operationDocs).map((d) => d.operationId);
    expect(Object.keys(examples).sort()).toEqual(ids.sort());
  });

  it.each(entries)("%s: the request matches its route and the body parses with the handler's schema", (_id, e) => {
    const { route, opDoc, example } = e;
    const template = new RegExp(`^${route.path.replace(/\{\w+\}/g, "[A-Za-z0-9]+")}(\\?[^/]*)?$`);
    expect(example.request.path).toMatch(template);
    for (const q of new URLSearchParams(example.request.path.split("?")[1] ?? "").keys())
      expect(opDoc.query?.map((p) => p.name)).toContain(q);
    if (route.auth !== "none") {
      const names = Object.keys(example.request.headers).map((h) => h.toLowerCase());
      expect(names.some((h) => ["appkey", "authorization", "cookie"].includes(h))).toBe(true);
    }
    if (opDoc.body) {
      expect(example.request.body).toBeDefined();
      const parsed = opDoc.body.safeParse(example.request.body);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    } else expect(example.request.body).toBeUndefined();
  });

  it.each(entries)("%s: the answer is a documented status and parses with its response schema", (_id, e) => {
    const { opDoc, example } = e;
    const response = opDoc.responses[example.answer.status];
    expect(response, `status ${example.answer.status}`).toBeDefined();
    if (example.answer.json !== undefined) {
      expect(response!.json).toBeDefined();
      const parsed = response!.json!.safeParse(example.answer.json);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    } else expect(example.answer.note, "a body-less or binary answer says what it holds").toBeTruthy();
  });

  it.each(entries)("%s: error codes are catalogue codes of the documented statuses", (_id, e) => {
    const { opDoc, example } = e;
    for (const code of opDoc.codes) {
      expect(catalogue[code], code).toBeDefined();
      expect(opDoc.errors, code).toContain(catalogue[code].status);
    }
    if (opDoc.errors.length > 0) expect(example.error, "an operation that can fail shows a failure").toBeDefined();
    if (example.error) expect(opDoc.codes).toContain(example.error.code);
  });

  it.each(entries)("%s: the document carries the same examples", (_id, e) => {
    const { route, opDoc, example } = e;
    const op = doc.paths[route.path]![route.method.toLowerCase()]!;
    expect(op[EXAMPLE_EXTENSION].request).toEqual({ path: example.request.path, headers: example.request.headers });
    expect(op[EXAMPLE_EXTENSION].answer.status).toBe(example.answer.status);
    if (example.request.body !== undefined)
      expect(op.requestBody!.content["application/json"]!.examples![opDoc.operationId]!.value).toEqual(
        example.request.body,
      );
    if (example.answer.json !== undefined)
      expect(
        op.responses[example.answer.status]!.content!["application/json"]!.examples![opDoc.operationId]!.value,
      ).toEqual(example.answer.json);
    // One example body per code, built by the API's own error-body builder.
    for (const status of opDoc.errors) {
      const codes = opDoc.codes.filter((c) => catalogue[c].status === status);
      const shown = op.responses[String(status)]!.content?.["application/json"]?.examples ?? {};
      expect(Object.keys(shown).sort(), `status ${status}`).toEqual([...codes].sort());
      for (const [code, ex] of Object.entries(shown)) {
        expect(errorBody.safeParse(ex.value).success).toBe(true);
        const body = ex.value as { statusCode: number; code: ErrorCode; docsUrl: string; message: unknown };
        expect(body).toMatchObject({
          statusCode: status,
          code,
          docsUrl: `https://site.test/docs/errors#${code.toLowerCase()}`,
        });
        expect(JSON.stringify(body.message), "placeholders are filled").not.toMatch(/\{\w+\}/);
      }
    }
    if (example.error)
      expect(op[EXAMPLE_EXTENSION].error).toEqual({
        status: catalogue[example.error.code].status,
        code: example.error.code,
      });
  });
});
