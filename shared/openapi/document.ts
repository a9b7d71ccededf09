import type { ZodType } from "zod";
import * as z from "zod";
import { catalogue } from "#shared/errors/catalogue.ts";
import { PlatenError, untranslated } from "#shared/errors/platen-error.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { SESSION_COOKIE } from "#shared/identity/session.ts";
import { parameterSpecSchema } from "#shared/designs/bundle-schema.ts";
import {
  type ErrorExample,
  type OperationExample,
  operationExamples,
  SAMPLE_RETRY_AFTER,
  SAMPLE_VARS,
} from "./examples.ts";
import { errorBody, parameterSpec } from "./response-shapes.ts";
import { type OperationDoc, operationDocs, type ResponseDoc } from "./operations.ts";

/** The part of a route definition the document needs (shared/definitions/routes.ts). */
export interface DocumentedRoute {
  method: string;
  path: string;
  auth: "appkey-or-bearer" | "bearer-or-session" | "none";
}

/** Where the document points clients: `{base_url}`, `{auth_url}` and `{site}` (examples' share and docs URLs). */
export interface DocumentUrls {
  baseUrl: string;
  authUrl: string;
  /** Default: `{base_url}` without its `/v1`. */
  siteUrl?: string;
}

/**
 * The operation extension that carries what OpenAPI has no field for: the example request's
 * path (below `servers[0].url`, ids filled in) and headers, the example answer's status,
 * headers and (binary bodies) a note, and which error example to show. Bodies are in the
 * standard `examples` of the request body and responses, under the operationId (answers)
 * or the error code (errors).
 */
export const EXAMPLE_EXTENSION = "x-platen-example";

export interface ExampleExtension {
  request: { path: string; headers: Record<string, string> };
  answer: { status: number; headers?: Record<string, string>; note?: string };
  error?: { status: number; code: string };
}

type JsonObject = Record<string, unknown>;

/**
 * The OpenAPI 3.1 document of the API: one operation per route of the route table, bodies
 * converted from the zod schemas the handlers validate with (zod 4's JSON Schema output is
 * draft 2020-12, the dialect of OpenAPI 3.1). A route without documentation throws, so the
 * document cannot silently miss one.
 */
export function buildOpenApiDocument(routes: DocumentedRoute[], urls: DocumentUrls): JsonObject {
  const schemas = new SchemaCollector();
  const paths: Record<string, JsonObject> = {};
  const siteUrl = (urls.siteUrl ?? urls.baseUrl.replace(/\/v1\/?$/, "")).replace(/\/$/, "");
  const examples = operationExamples({
    baseUrl: urls.baseUrl.replace(/\/$/, ""),
    siteUrl,
    authUrl: urls.authUrl.replace(/\/$/, ""),
  });
  for (const route of routes) {
    const doc = operationDocs[`${route.method} ${route.path}`];
    if (!doc)
      throw new Error(
        `route ${route.method} ${route.path} has no OpenAPI documentation (shared/openapi/operations.ts)`,
      );
    const example = examples[doc.operationId];
    if (!example) throw new Error(`operation ${doc.operationId} has no examples (shared/openapi/examples.ts)`);
    const op = operation(route, doc, schemas, { example, siteUrl });
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: op };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Platen API",
      version: "1.0.0",
      description:
        "Document generation: templates (designs) + JSON parameters → PDF. Generation takes an appkey or a Bearer token with pdf:generate. The design API (/designs, /templates) takes a Bearer token with a designs:* or templates:* scope, or a login session naming its workspace with X-Workspace-Id; never an appkey. A client-credentials token acts there by its scopes alone (on webhook management it has no role and gets 403).",
    },
    servers: [{ url: urls.baseUrl }],
    paths,
    components: { schemas: schemas.all(), securitySchemes: securitySchemes(urls.authUrl) },
  };
}

function operation(
  route: DocumentedRoute,
  doc: OperationDoc,
  schemas: SchemaCollector,
  { example, siteUrl }: { example: OperationExample; siteUrl: string },
): JsonObject {
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  const queryParams = (doc.query ?? []).map((q) => ({
    name: q.name,
    in: "query",
    required: false,
    description: q.description,
    schema: { type: q.type },
  }));
  const headerParams = (doc.headers ?? []).map((h) => ({
    name: h.name,
    in: "header",
    required: false,
    description: h.description,
    schema: { type: "string" },
  }));
  const parameters = [...pathParams, ...queryParams, ...headerParams];
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    const answer = Number(status) === example.answer.status ? example.answer : undefined;
    responses[status] = responseObject(response, schemas, `${upperFirst(doc.operationId)}${status}`, {
      key: doc.operationId,
      ...(answer && { json: answer.json, note: answer.note, contentType: answer.headers?.["Content-Type"] }),
    });
  }
  for (const status of doc.errors) {
    const codes = doc.codes.filter((code) => catalogue[code].status === status);
    responses[String(status)] = FRONT_LAYER_ANSWERS[status] ?? {
      description: "error: an ErrorBody, its `code` from the error catalogue (one example per code)",
      ...(ERROR_HEADERS[status] && { headers: ERROR_HEADERS[status] }),
      content: {
        "application/json": {
          schema: schemas.ref("ErrorBody", errorBody),
          ...(codes.length > 0 && {
            examples: Object.fromEntries(
              codes.map((code) => [
                code,
                errorExample(example.error?.code === code ? example.error : { code }, siteUrl),
              ]),
            ),
          }),
        },
      },
    };
  }
  const extension: ExampleExtension = {
    request: { path: example.request.path, headers: example.request.headers },
    answer: {
      status: example.answer.status,
      ...(example.answer.headers && { headers: example.answer.headers }),
      ...(example.answer.note && { note: example.answer.note }),
    },
    ...(example.error && { error: { status: catalogue[example.error.code].status, code: example.error.code } }),
  };
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description && { description: doc.description }),
    tags: doc.tags,
    security: security(route.auth, doc.scopes),
    ...(parameters.length > 0 && { parameters }),
    ...(doc.body && {
      requestBody: {
        required: !doc.bodyOptional,
        content: {
          "application/json": {
            schema: schemas.ref(`${upperFirst(doc.operationId)}Body`, doc.body, "input"),
            ...(example.request.body !== undefined && {
              examples: { [doc.operationId]: { value: example.request.body } },
            }),
          },
          // The same operation with the bytes of a file as the body (a bundle zip).
          ...(doc.binaryBody && { [doc.binaryBody]: { schema: { type: "string", contentMediaType: doc.binaryBody } } }),
        },
      },
    }),
    responses,
    [EXAMPLE_EXTENSION]: extension,
  };
}

/**
 * The error body (README.md#errors) the API answers for a code, in English (the builder of the real answers).
 */
function errorExample(error: ErrorExample, siteUrl: string): JsonObject {
  const retryAfter = error.retryAfter ?? SAMPLE_RETRY_AFTER[error.code];
  const err = new PlatenError(error.code, {
    vars: error.vars ?? SAMPLE_VARS[error.code] ?? {},
    ...(error.details && {
      details: error.details.map(({ message, ...d }) => ({ ...d, text: untranslated(message) })),
    }),
    ...(retryAfter !== undefined && { retryAfter }),
  });
  return { summary: catalogue[error.code].en, value: buildErrorBody(err, "en", siteUrl) };
}

/**
 * README.md#errors: a 413, and a 504 on sync generation, come from the layer in front of the API, without a
 * `code`.
 */
const FRONT_LAYER_ANSWERS: Record<number, JsonObject> = {
  413: {
    description: "request body over 50 MB, answered by the layer in front of the API: detect by status (no `code`)",
  },
  504: {
    description:
      "sync time-out, answered by the layer in front of the API: detect by status (no `code`); the generation may still run and count pages, do not resend (send an Idempotency-Key to retry safely)",
  },
};

/** Headers some error answers carry beside the error body (README.md#errors). */
const ERROR_HEADERS: Record<number, JsonObject> = {
  401: {
    "WWW-Authenticate": {
      description: 'Bearer realm="platen" (with error="invalid_token" when a bearer token was refused)',
      schema: { type: "string" },
    },
  },
  429: { "Retry-After": { description: "seconds until the window allows the request", schema: { type: "integer" } } },
};

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function responseObject(
  response: ResponseDoc,
  schemas: SchemaCollector,
  name: string,
  example: { key: string; json?: unknown; note?: string; contentType?: string },
): JsonObject {
  const content: JsonObject = {};
  const binaries = [response.binary ?? []].flat();
  for (const binary of binaries) {
    // Of several types, the example's note describes the one its answer has.
    const shown = binaries.length === 1 || binary === example.contentType;
    content[binary] = {
      schema: { type: "string", contentMediaType: binary },
      ...(shown &&
        example.note &&
        example.json === undefined && { examples: { [example.key]: { summary: example.note } } }),
    };
  }
  if (response.json)
    content["application/json"] = {
      schema: schemas.ref(name, response.json),
      ...(example.json !== undefined && { examples: { [example.key]: { value: example.json } } }),
    };
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, description]) => [
      name,
      { description, schema: { type: "string" } },
    ]),
  );
  return {
    description: response.description,
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(Object.keys(content).length > 0 && { content }),
  };
}

/**
 * Who may call: `scopes` (the operation's own, any one of them suffices) replace the default
 * `pdf:generate` of a Bearer token, one requirement each, since OpenAPI reads the scopes of one
 * requirement as all needed (an entry `a b` needs both).
 */
function security(auth: DocumentedRoute["auth"], scopes: string[] = ["pdf:generate"]): JsonObject[] {
  if (auth === "none") return [];
  const bearer = scopes.map((scope) => ({ oauth2: scope.split(" ") }));
  if (auth === "appkey-or-bearer") return [{ appkey: [] }, ...bearer];
  return [...bearer, { session: [] }];
}

function securitySchemes(authUrl: string): JsonObject {
  const root = authUrl.replace(/\/$/, "");
  const scopes = {
    "pdf:generate": "generation; also webhook management and key rotation",
    "designs:read":
      "design API: read designs, versions, bundles and drafts, preview (also the design list and parameters)",
    "designs:write": "design API: create, publish, edit and archive designs, save drafts (includes designs:read)",
    "templates:read": "gallery: read a template and its bundle",
    "templates:write": "gallery: share and withdraw the workspace's templates (includes templates:read)",
    "records:read": "kept records: search, export, verify and download them",
  };
  return {
    appkey: { type: "apiKey", in: "header", name: "appkey", description: "The workspace application key." },
    oauth2: {
      type: "oauth2",
      flows: {
        authorizationCode: {
          authorizationUrl: `${root}/oauth/authorize`,
          tokenUrl: `${root}/oauth/token`,
          scopes: { openid: "user id", profile: "profile", ...scopes },
        },
        clientCredentials: { tokenUrl: `${root}/oauth/token`, scopes },
      },
    },
    session: {
      type: "apiKey",
      in: "cookie",
      name: SESSION_COOKIE,
      description:
        "First-party login session of the service's own pages. On the design API the session names its workspace with the X-Workspace-Id header; its changes must come from the service's own origin.",
    },
  };
}

/**
 * Collects the zod schemas an operation uses under component names and converts them all
 * at the end, one zod registry per direction (request bodies as input: defaults make fields
 * optional). References between and inside schemas (the recursive ParameterSpec, and
 * DesignParameterSpec of design.json's parameters) point at
 * `#/components/schemas/<name>`, which resolves inside the OpenAPI document.
 */
class SchemaCollector {
  private readonly registries = { input: z.registry<{ id: string }>(), output: z.registry<{ id: string }>() };

  constructor() {
    // Named up front: a recursive schema needs a name to refer to itself by.
    this.registries.output.add(parameterSpec, { id: "ParameterSpec" });
    this.registries.input.add(parameterSpecSchema, { id: "DesignParameterSpec" });
  }

  ref(name: string, schema: ZodType, io: "input" | "output" = "output"): JsonObject {
    const registry = this.registries[io];
    if (!registry.has(schema)) registry.add(schema, { id: name });
    return { $ref: `#/components/schemas/${registry.get(schema)!.id}` };
  }

  /** Custom refinements have no JSON Schema form: they show as unconstrained (`{}`). */
  all(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const io of ["input", "output"] as const) {
      const converted = z.toJSONSchema(this.registries[io], {
        io,
        unrepresentable: "any",
        uri: (id) => `#/components/schemas/${id}`,
      });
      for (const [id, schema] of Object.entries(converted.schemas)) {
        const { $schema: _dialect, $id: _id, ...json } = schema as JsonObject;
        out[id] = json;
      }
    }
    return out;
  }
}
