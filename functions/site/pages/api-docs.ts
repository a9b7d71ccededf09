import { STATUS_CODES } from "node:http";
import { routes } from "#shared/definitions/routes.ts";
import type { Language } from "#shared/errors/language.ts";
import { EXAMPLE_EXTENSION, type ExampleExtension } from "#shared/openapi/document.ts";
import { servedOpenApiDocument } from "#shared/openapi/served-document.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill, type Placeholders } from "#shared/i18n/texts.ts";
import type { SiteIdentity } from "../identity.ts";
import { dataTable, errorCodeLink, withCode } from "../page-parts.ts";
import { page } from "../site-edge.ts";
import type { PageHandler } from "../site-types.ts";
import { apiDocsText } from "./api-docs-text.ts";

/** The parts of an OpenAPI 3.1 document (shared/openapi/document.ts) the reference reads. */
type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
  description?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: Schema | boolean;
};
interface Media {
  schema?: Schema;
  examples?: Record<string, { summary?: string; value?: unknown }>;
}
interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, Media> };
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
  [EXAMPLE_EXTENSION]?: ExampleExtension;
}
interface SecurityScheme {
  type: string;
  in?: string;
  name?: string;
}
export interface OpenApiDocument {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, SecurityScheme> };
}

const METHODS = ["get", "post", "put", "patch", "delete"];

/**
 * `fill()` (shared/i18n/texts.ts) with markup for values: the text's `{name}` placeholders
 * become the given fragments, the text around them is escaped with its `code` spans. As with
 * `fill()`, the compiler asks for exactly the text's placeholders.
 */
function fillHtml<T extends string>(text: T, vars: { readonly [Name in Placeholders<T>]: Html }): Html[] {
  const values: Record<string, Html> = vars;
  return text
    .split(/\{(\w+)\}/)
    .flatMap((part, i) => (i % 2 ? [values[part] ?? html`${`{${part}}`}`] : withCode(part)));
}

/** The error docs page of the language, where each code's entry is `#<code in lowercase>`. */
const errorDocsPath = (lang: Language) => (lang === "ja" ? "/ja/docs/errors" : "/docs/errors");

/**
 * The body of the API reference: a table of contents by tag, then one section per operation,
 * its `id` the operationId. Every value from the document goes through the `html` tag, so a
 * description can never become markup. No script: plain HTML for the site's CSP.
 */
export function apiReference(document: object, lang: Language): Html {
  // The shape buildOpenApiDocument writes (an OpenAPI 3.1 document); only read here.
  const doc = document as OpenApiDocument;
  const s = apiDocsText(lang);
  const server = doc.servers?.[0]?.url ?? "";
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method]! })),
  );
  const tags = [...new Set(operations.map((o) => o.op.tags?.[0] ?? "other"))];
  const byTag = (tag: string) => operations.filter((o) => (o.op.tags?.[0] ?? "other") === tag);
  const shownPath = (path: string) => `${pathPrefix(server)}${path}`;

  const operationItem = (o: (typeof operations)[number]) => html`<li>
  <a href="#${o.op.operationId}"><code>${o.method.toUpperCase()} ${shownPath(o.path)}</code></a> ${o.op.summary}
</li>`;
  const tagItem = (tag: string) => html`<li>
  <a href="#tag-${tag}">${s.tags[tag] ?? tag}</a>
  <ul>${byTag(tag).map(operationItem)}</ul>
</li>`;
  const toc = html`<nav aria-labelledby="api-contents" id="contents">
<h2 id="api-contents">${s.contents}</h2>
<ul>${tags.map(tagItem)}</ul>
</nav>`;

  const sections = tags.map(
    (tag) => html`<section class="api-tag" id="tag-${tag}" aria-labelledby="h-tag-${tag}">
<h2 id="h-tag-${tag}">${s.tags[tag] ?? tag}</h2>
${byTag(tag).map((o) => operationSection(doc, lang, o.method, shownPath(o.path), o.op))}
</section>
`,
  );
  const documentPath = `${pathPrefix(server)}/openapi.json`;
  const intro = fillHtml(s.intro, {
    openapi: html`<a href="${server}/openapi.json"><code>${documentPath}</code></a>`,
    baseUrl: html`<code>${server}</code>`,
  });
  return html`<p>${intro}</p>
${s.englishNote ? html`<p class="muted">${s.englishNote}</p>` : ""}
<p><a href="${errorDocsPath(lang)}">${s.errorDocsLink}</a></p>
${toc}
${sections}`;
}

/** `/v1` of `https://api.example.com/v1`: the paths of the document are below it. */
function pathPrefix(server: string): string {
  try {
    return new URL(server).pathname.replace(/\/$/, "");
  } catch {
    return "";
  }
}

function operationSection(
  doc: OpenApiDocument,
  lang: Language,
  method: string,
  shownPath: string,
  op: Operation,
): Html {
  const s = apiDocsText(lang);
  const id = op.operationId;
  const example = op[EXAMPLE_EXTENSION];
  return html`<section class="api-op" id="${id}" aria-labelledby="h-${id}">
<h3 id="h-${id}"><a href="#${id}"><code>${method.toUpperCase()} ${shownPath}</code></a></h3>
<p>${withCode(op.summary)}</p>
${op.description ? html`<p>${withCode(op.description)}</p>` : ""}
<dl class="facts">
  <dt>${s.operationId}</dt>
  <dd><code>${id}</code></dd>
  <dt>${s.auth}</dt>
  <dd>${authText(doc, op, lang)}</dd>
</dl>
${parametersTable(op, lang)}
${requestBodyPart(doc, op, lang)}
${responsesTable(op, lang)}
${example ? examplesPart(doc, method, op, example, lang) : ""}
<p class="back"><a href="#contents">${s.backToTop}</a></p>
</section>
`;
}

function authText(doc: OpenApiDocument, op: Operation, lang: Language): Html[] | string {
  const s = apiDocsText(lang);
  if (!op.security?.length) return s.authNone;
  const schemes = doc.components?.securitySchemes ?? {};
  return op.security.flatMap((requirement, i) =>
    Object.entries(requirement).map(([name, scopes]) => {
      const scheme = schemes[name];
      const what =
        scheme?.type === "oauth2"
          ? html`${s.authOAuth}`
          : scheme?.in === "cookie"
            ? html`${fillHtml(s.authCookie, { name: html`<code>${scheme.name ?? name}</code>` })}`
            : html`${fillHtml(s.authHeader, { name: html`<code>${scheme?.name ?? name}</code>` })}`;
      const scopeCodes = scopes.map((scope, j) => html`${j ? ", " : ""}<code>${scope}</code>`);
      const scopeText = scopes.length ? html`${fillHtml(s.scopes, { scopes: html`${scopeCodes}` })}` : "";
      return html`${i ? s.authOr : ""}${what}${scopeText}`;
    }),
  );
}

function parametersTable(op: Operation, lang: Language): Html | string {
  const s = apiDocsText(lang);
  if (!op.parameters?.length) return "";
  const rows = op.parameters.map(
    (p) => html`<tr>
  <td><code>${p.name}</code></td>
  <td>${s.paramIns[p.in] ?? p.in}</td>
  <td>${typeText(p.schema ?? {}, lang)}</td>
  <td class="nowrap">${p.required ? s.yes : s.no}</td>
  <td>${withCode(p.description ?? "")}</td>
</tr>`,
  );
  return html`<h4>${s.parameters}</h4>
${dataTable([s.paramName, s.paramIn, s.type, s.required, s.description], rows)}`;
}

/** One row per field: nested objects and arrays of objects as dotted paths (`contents[].fileName`). */
interface FieldRow {
  name: string;
  schema: Schema;
  required: boolean;
}

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  let out = schema;
  for (let i = 0; out.$ref && i < 10; i++) {
    const name = out.$ref.replace("#/components/schemas/", "");
    out = doc.components?.schemas?.[name] ?? {};
  }
  return out;
}

function fieldRows(doc: OpenApiDocument, schema: Schema, prefix = "", seen = new Set<Schema>()): FieldRow[] {
  const object = resolve(doc, schema);
  const union = object.anyOf ?? object.oneOf;
  if (!object.properties && union && !seen.has(object)) {
    // A body of alternatives (a bundle, or a copy of a template): every field once; a top-level
    // field is required only where each alternative requires it, a nested one as its parent says.
    seen.add(object);
    const alternatives = union.map((u) => fieldRows(doc, u, prefix, seen));
    seen.delete(object);
    const merged = new Map<string, FieldRow>();
    for (const row of alternatives.flat()) {
      const nested = /[.[]/.test(row.name.slice(prefix.length));
      const everywhere = alternatives.every((rows) => rows.some((r) => r.name === row.name && r.required));
      if (!merged.has(row.name)) merged.set(row.name, { ...row, required: nested ? row.required : everywhere });
    }
    return [...merged.values()];
  }
  if (seen.has(object) || !object.properties) return [];
  seen.add(object);
  const rows = Object.entries(object.properties).flatMap(([name, raw]) => {
    const field = resolve(doc, raw);
    const row = { name: `${prefix}${name}`, schema: raw, required: object.required?.includes(name) ?? false };
    const items = field.items && resolve(doc, field.items);
    const nested = field.properties
      ? fieldRows(doc, field, `${prefix}${name}.`, seen)
      : items?.properties
        ? fieldRows(doc, items, `${prefix}${name}[].`, seen)
        : [];
    return [row, ...nested];
  });
  seen.delete(object);
  return rows;
}

function typeText(raw: Schema, lang: Language, doc?: OpenApiDocument): string {
  const s = apiDocsText(lang);
  const schema = doc ? resolve(doc, raw) : raw;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((u) => typeText(u, lang, doc)).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  const bounds = [
    schema.minLength !== undefined && `≥ ${schema.minLength}`,
    schema.maxLength !== undefined && `≤ ${schema.maxLength}`,
    // zod writes ±MAX_SAFE_INTEGER for every integer: no bound worth showing.
    schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER && `≥ ${schema.minimum}`,
    schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER && `≤ ${schema.maximum}`,
    schema.minItems !== undefined && `≥ ${schema.minItems}`,
    schema.maxItems !== undefined && `≤ ${schema.maxItems}`,
  ].filter(Boolean);
  const bounded = bounds.length ? ` (${bounds.join(", ")})` : "";
  if (type === "array")
    return fill(s.arrayOf, { type: schema.items ? typeText(schema.items, lang, doc) : s.anyType, bounds: bounded });
  return `${type ?? s.anyType}${bounded}`;
}

function fieldDescription(doc: OpenApiDocument, raw: Schema, lang: Language): Html[] {
  const s = apiDocsText(lang);
  const schema = resolve(doc, raw);
  const parts: Html[] = [];
  if (schema.description) parts.push(html`${withCode(schema.description)}`);
  if (schema.default !== undefined)
    parts.push(html`${parts.length ? " " : ""}(${fill(s.defaultValue, { value: JSON.stringify(schema.default) })})`);
  return parts;
}

function requestBodyPart(doc: OpenApiDocument, op: Operation, lang: Language): Html | string {
  const s = apiDocsText(lang);
  const media = op.requestBody?.content["application/json"];
  if (!media?.schema) return "";
  const rows = fieldRows(doc, media.schema).map(
    (r) => html`<tr>
  <td><code>${r.name}</code></td>
  <td>${typeText(r.schema, lang, doc)}</td>
  <td class="nowrap">${r.required ? s.yes : s.no}</td>
  <td>${fieldDescription(doc, r.schema, lang)}</td>
</tr>`,
  );
  // A body that may also be a file's bytes (a bundle zip): the other media type of the request body.
  const binary = Object.keys(op.requestBody!.content).find((type) => type !== "application/json");
  return html`<h4>${s.requestBody}</h4>
<p>${op.requestBody!.required ? s.bodyRequired : s.bodyOptional}</p>
${binary ? html`<p>${fillHtml(s.bodyBinary, { type: html`<code>${binary}</code>` })}</p>` : ""}
${dataTable([s.field, s.type, s.required, s.description], rows)}`;
}

/** The catalogue codes of an error answer: the codes of its per-code examples. */
function errorCodesOf(response: Operation["responses"][string]): string[] {
  const examples = response.content?.["application/json"]?.examples ?? {};
  return Object.values(examples)
    .map((e) => (e.value as { code?: unknown } | undefined)?.code)
    .filter((c): c is string => typeof c === "string");
}

function responsesTable(op: Operation, lang: Language): Html {
  const s = apiDocsText(lang);
  const rows = Object.keys(op.responses)
    .sort()
    .map((status) => {
      const response = op.responses[status]!;
      const codes = errorCodesOf(response).map((code, i) => html`${i ? ", " : ""}${errorCodeLink(lang, code)}`);
      return html`<tr>
  <td>${status}</td>
  <td>${withCode(response.description)}</td>
  <td>${codes}</td>
</tr>`;
    });
  return html`<h4>${s.responses}</h4>
${dataTable([s.status, s.description, s.errorCodes], rows)}`;
}

/** Shell-quoted for a POSIX shell: single quotes, a quote inside as `'\''`. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** The example request as a curl command against the document's server. */
function curlCommand(doc: OpenApiDocument, method: string, op: Operation, example: ExampleExtension): string {
  const server = (doc.servers?.[0]?.url ?? "").replace(/\/$/, "");
  const lines = [
    `curl${method === "get" ? "" : ` -X ${method.toUpperCase()}`} ${shellQuote(server + example.request.path)}`,
  ];
  for (const [name, value] of Object.entries(example.request.headers))
    lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`);
  const body = op.requestBody?.content["application/json"]?.examples?.[op.operationId]?.value;
  if (body !== undefined) lines.push(`  --data ${shellQuote(JSON.stringify(body, null, 2))}`);
  const type = example.answer.headers?.["Content-Type"];
  const file = { "application/pdf": "out.pdf", "application/zip": "out.zip", "image/png": "out.png" }[type ?? ""];
  if (file && example.answer.note) lines.push(`  -o ${file}`);
  return lines.join(" \\\n");
}

function httpAnswer(status: number, headers: Record<string, string>, body: unknown, note?: string): string {
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`.trimEnd()];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  const text = body !== undefined ? JSON.stringify(body, null, 2) : note ? `[${note}]` : "";
  return text ? `${head.join("\n")}\n\n${text}` : head.join("\n");
}

function examplesPart(
  doc: OpenApiDocument,
  method: string,
  op: Operation,
  example: ExampleExtension,
  lang: Language,
): Html {
  const s = apiDocsText(lang);
  const answer = example.answer;
  const media = op.responses[String(answer.status)]?.content ?? {};
  const answerJson = media["application/json"]?.examples?.[op.operationId]?.value;
  const answerHeaders = {
    ...(answerJson !== undefined && { "Content-Type": "application/json" }),
    ...answer.headers,
  };
  const error = example.error;
  const errorBody =
    error && op.responses[String(error.status)]?.content?.["application/json"]?.examples?.[error.code]?.value;
  const retryAfter = (errorBody as { retryAfter?: number } | undefined)?.retryAfter;
  const errorHeaders = {
    "Content-Type": "application/json",
    ...(retryAfter !== undefined && { "Retry-After": String(retryAfter) }),
  };
  const errorPart =
    error && errorBody
      ? html`<h4>${s.exampleError} (${errorCodeLink(lang, error.code)})</h4>
<pre><code>${httpAnswer(error.status, errorHeaders, errorBody)}</code></pre>`
      : "";
  return html`<h4>${s.exampleRequest}</h4>
<pre><code>${curlCommand(doc, method, op, example)}</code></pre>
<h4>${s.exampleAnswer}</h4>
<pre><code>${httpAnswer(answer.status, answerHeaders, answerJson, answer.note)}</code></pre>
${errorPart}`;
}

/** The rendered reference per language: the document is fixed for the container's life. */
const rendered = new Map<Language, Html>();

/**
 * `/docs/api` and `/ja/docs/api`: the API reference, rendered from the very document
 * `GET /v1/openapi.json` answers (built in-process by the same function, never fetched).
 */
export const apiDocsPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const s = apiDocsText(req.lang);
    let body = rendered.get(req.lang);
    if (!body) {
      body = apiReference(servedOpenApiDocument(routes), req.lang);
      rendered.set(req.lang, body);
    }
    return {
      status: 200,
      page: page(req, identity, false, s.title, body),
      headers: { "Cache-Control": "public, max-age=300" },
    };
  };
