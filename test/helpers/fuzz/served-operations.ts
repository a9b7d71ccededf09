import { EXAMPLE_EXTENSION, type ExampleExtension } from "#shared/openapi/document.ts";

/**
 * What the fuzz needs of each operation of the served OpenAPI document (`GET /v1/openapi.json`):
 * where it lives, its parameters, the example request body to mutate, the statuses it
 * documents and who may call it. Read from the document the service serves, so an operation
 * added to the route table is fuzzed without a change here.
 */
export interface FuzzOperation {
  operationId: string;
  method: string;
  /** Path template below `{base_url}`, e.g. `/designs/{designId}/versions/{version}`. */
  path: string;
  pathParams: string[];
  /** Query parameters with the example's value (or the schema's first enum value), when it has one. */
  query: { name: string; example?: string; values: string[] }[];
  /** The example request body (JSON), with the example's ids still in it. */
  exampleBody?: unknown;
  /** The path parameters of the example request (the ids the example body may repeat). */
  exampleIds: Record<string, string>;
  acceptsJson: boolean;
  acceptsZip: boolean;
  /** Statuses the document lists for the operation. */
  statuses: Set<number>;
  /** `appkey` (generation, status, downloads, designs), `design` (design API, gallery), `management`, `none`. */
  family: "appkey" | "design" | "management" | "none";
}

type Json = Record<string, unknown>;

export function fuzzOperations(document: Json): FuzzOperation[] {
  const ops: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as Json;
      const params = (op.parameters ?? []) as { in: string; name: string; schema?: Json }[];
      const example = op[EXAMPLE_EXTENSION] as ExampleExtension;
      const exampleUrl = new URL(example.request.path, "http://example.invalid");
      const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      const json = content["application/json"];
      const security = (op.security ?? []) as Record<string, string[]>[];
      const schemes = new Set(security.flatMap((s) => Object.keys(s)));
      ops.push({
        operationId: String(op.operationId),
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
        query: params
          .filter((p) => p.in === "query")
          .map((p) => {
            const values = ((p.schema?.enum as unknown[]) ?? []).map(String);
            return { name: p.name, example: exampleUrl.searchParams.get(p.name) ?? values[0], values };
          }),
        exampleBody: (json?.examples as Record<string, { value: unknown }> | undefined)?.[String(op.operationId)]
          ?.value,
        exampleIds: idsOf(path, exampleUrl.pathname),
        acceptsJson: json !== undefined,
        acceptsZip: content["application/zip"] !== undefined,
        statuses: new Set(Object.keys(op.responses as Json).map(Number)),
        family: schemes.has("appkey")
          ? "appkey"
          : schemes.has("session")
            ? path.startsWith("/workspace")
              ? "management"
              : "design"
            : "none",
      });
    }
  }
  return ops;
}

/** `{designId: "D7s…"}` from `/designs/{designId}` and `/designs/D7s…`. */
function idsOf(template: string, concrete: string): Record<string, string> {
  const names = template.split("/");
  const values = concrete.split("/");
  const ids: Record<string, string> = {};
  names.forEach((segment, i) => {
    const m = /^\{(\w+)\}$/.exec(segment);
    if (m && values[i] !== undefined) ids[m[1]!] = decodeURIComponent(values[i]!);
  });
  return ids;
}
