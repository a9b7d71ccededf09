import type { ZodType } from "zod";
import * as z from "zod";
import { type DesignOperation, operationScopes } from "#shared/auth/design-access.ts";
import type { ErrorCode } from "#shared/errors/catalogue.ts";
import {
  createEndpointBody,
  endpointListResponse,
  endpointResponse,
  endpointWithSecretResponse,
  regenerateSecretBody,
  regeneratedSecretResponse,
  secretResponse,
  updateEndpointBody,
  workspaceWebhookBody,
} from "#shared/webhooks/endpoint-schemas.ts";
import { multipleRequestSchema, singleRequestSchema } from "#shared/generation/requests/index.ts";
import { appKeyRotationResponse } from "#shared/workspaces/workspace-schemas.ts";
import { recordPageSchema, recordRetentionBody, verifyReportSchema } from "#shared/records/index.ts";
import { createIdentityBody } from "#shared/signing/identities.ts";
import { identityViewSchema } from "#shared/signing/identity-store.ts";
import { patchBody, previewBody, shareBody } from "#shared/authoring/request-bodies.ts";
import {
  createDesignBody,
  designDetail,
  designPage,
  draftAnswer,
  draftForm,
  draftSaved,
  publishedVersion,
  publishVersionBody,
  templateDetail,
  versionDetail,
  versionPage,
} from "./design-shapes.ts";
import {
  asyncAccepted,
  designList,
  generationStatus,
  health,
  identifiersJson,
  parameterSpec,
} from "./response-shapes.ts";

/** One response of an operation: a JSON schema, a binary media type, both (sync generation), or neither (204). */
export interface ResponseDoc {
  description: string;
  json?: ZodType;
  /** One media type, or several the operation chooses between (a preview's PDF or PNG). */
  binary?: string | string[];
  /** Response headers worth a schema: name → description (a string each). */
  headers?: Record<string, string>;
}

/** What the OpenAPI document says about one route of the route table. */
export interface OperationDoc {
  operationId: string;
  summary: string;
  tags: string[];
  body?: ZodType;
  /** The body may be left out (an empty request body). */
  bodyOptional?: boolean;
  query?: { name: string; description: string; type: "string" | "integer" }[];
  /** Header parameters a caller may send (e.g. a login session's X-Workspace-Id). */
  headers?: { name: string; description: string }[];
  /** Longer text than the summary: who may call, what the body may be. */
  description?: string;
  /**
   * The Bearer scopes of the operation, any one of which suffices (default `pdf:generate`); the
   * document lists one security requirement per entry. An entry of several scopes separated by
   * spaces needs all of them (sharing a template: `templates:write designs:read`).
   */
  scopes?: string[];
  /** A media type the body may be sent as instead of JSON (the bytes of a file, e.g. a bundle zip). */
  binaryBody?: string;
  responses: Record<number, ResponseDoc>;
  /** Error statuses answered with the error body (README.md#errors). */
  errors: number[];
  /**
   * The catalogue codes those answers carry (each code's status is one of `errors`); the
   * document shows one example body per code and the API reference links each to its entry
   * of the error docs page (`/docs/errors#<code>`).
   */
  codes: ErrorCode[];
}

const ok = (description: string, json: ZodType): ResponseDoc => ({ description, json });
const generationErrors = [400, 401, 403, 404, 409, 412, 429, 500, 503];
const managementErrors = [400, 401, 403, 404, 412];
/** Admission of every `appkey-or-bearer` route (shared/auth/authenticate.ts, shared/limits). */
const callerCodes: ErrorCode[] = ["AUTH_HEADER_MISSING", "INVALID_CREDENTIALS", "RATE_LIMITED"];
/** A Bearer token of a user who is no member of the workspace (shared/auth/bearer.ts). */
const memberCodes: ErrorCode[] = ["WORKSPACE_ROLE_DENIED"];
const designCodes: ErrorCode[] = ["DESIGN_NOT_FOUND", "DESIGN_VERSION_NOT_FOUND"];
/** What a generation request can be refused for before it renders (validate-request.ts, prepare-generation.ts, idempotency.ts, page-quota.ts). */
const generationCodes: ErrorCode[] = [
  ...callerCodes,
  ...memberCodes,
  ...designCodes,
  "VALIDATION_FAILED",
  "PARAMS_TYPE_MISMATCH",
  "PARAMS_NOT_OBJECT",
  "PARAMS_CIRCULAR_REFERENCE",
  "PARAMS_TOO_LARGE",
  "FILE_NAME_INVALID",
  "FILE_NAME_DUPLICATED",
  "TOO_MANY_CONTENTS",
  "WEBHOOK_URL_NOT_ALLOWED",
  "IDEMPOTENCY_KEY_REUSED",
  "IDEMPOTENCY_KEY_IN_PROGRESS",
  "PLAN_NOT_FOUND",
  "PLAN_PAGE_LIMIT_EXCEEDED",
  "ACTIVE_PLAN_NOT_FOUND",
  "INTERNAL_ERROR",
  "SERVICE_STARTING",
];
/** Downloads (shared/generation/reads/download.ts). */
const downloadCodes: ErrorCode[] = [...callerCodes, "FILE_NOT_FOUND", "FILE_NOT_READY", "FILE_GENERATION_FAILED"];
/** Management admission (shared/auth/management-caller.ts, management-access.ts). */
const managementCodes: ErrorCode[] = [
  "AUTH_HEADER_MISSING",
  "INVALID_CREDENTIALS",
  "VALIDATION_FAILED",
  "WORKSPACE_MISMATCH",
  "WORKSPACE_ROLE_DENIED",
  "ACCESS_DENIED",
];
const recordFilterQuery: NonNullable<OperationDoc["query"]> = [
  { name: "type", description: "invoice, quotation, delivery-note, order, receipt, contract or other", type: "string" },
  { name: "dateFrom", description: "取引年月日 from (YYYY-MM-DD, inclusive)", type: "string" },
  { name: "dateTo", description: "取引年月日 to (YYYY-MM-DD, inclusive)", type: "string" },
  { name: "amountMin", description: "取引金額 from, in minor units (inclusive)", type: "integer" },
  { name: "amountMax", description: "取引金額 to, in minor units (inclusive)", type: "integer" },
  { name: "currency", description: "ISO 4217 code", type: "string" },
  { name: "counterparty", description: "part of 取引先 (NFKC, case and spaces ignored)", type: "string" },
  { name: "number", description: "the document number, exactly", type: "string" },
];
/** Kept records (shared/records/README.md#the-api): an appkey or a Bearer token with records:read. */
const records = (
  doc: Omit<OperationDoc, "tags" | "scopes" | "errors" | "codes">,
  codes: ErrorCode[] = [],
): OperationDoc => ({
  ...doc,
  tags: ["records"],
  scopes: ["records:read"],
  errors: [400, 401, 403, 404, 412, 429],
  codes: [...callerCodes, ...memberCodes, ...codes],
});

const syncQuery = [
  {
    name: "response",
    description: "`json` returns the identifiers instead of the file",
    type: "string" as const,
  },
];
const versionQuery = [{ name: "version", description: "design version (default: latest)", type: "integer" as const }];
const generationBody = { single: singleRequestSchema, multiple: multipleRequestSchema };
const sync = (mode: "single" | "multiple", binary: string): OperationDoc => ({
  operationId: `generateSync${mode === "single" ? "Single" : "Multiple"}`,
  summary: `Generate ${mode === "single" ? "one PDF" : "a ZIP of PDFs"} and answer with it`,
  tags: ["generation"],
  body: generationBody[mode],
  query: syncQuery,
  responses: {
    200: { description: "the file, or the identifiers with ?response=json", binary, json: identifiersJson },
  },
  errors: [...generationErrors, 413, 422, 504],
  codes: [
    ...generationCodes,
    "FILE_MAPPING_TOO_LARGE",
    "DOCUMENT_PAGE_LIMIT_EXCEEDED",
    "DOCUMENT_HTML_LIMIT_EXCEEDED",
    "DOCUMENT_PDF_LIMIT_EXCEEDED",
    "TEMPLATE_FAILED",
    "SIGNING_FAILED",
  ],
});
const async = (mode: "single" | "multiple"): OperationDoc => ({
  operationId: `generateAsync${mode === "single" ? "Single" : "Multiple"}`,
  summary: `Accept a generation and render it in the background`,
  tags: ["generation"],
  body: generationBody[mode],
  responses: { 202: ok("accepted", asyncAccepted) },
  errors: [...generationErrors, 413],
  codes: generationCodes,
});
const manage = (
  operationId: string,
  summary: string,
  responses: Record<number, ResponseDoc>,
  body?: ZodType,
  codes: ErrorCode[] = [],
): OperationDoc => ({
  operationId,
  summary,
  tags: ["management"],
  ...(body && { body }),
  responses,
  errors: [...managementErrors, ...(body || operationId.startsWith("create") ? [409] : [])],
  codes: [...managementCodes, ...codes],
});
const endpointPath = "/workspace/{workspaceId}/webhook-endpoints";
const identityPath = "/workspace/{workspaceId}/signing-identities";

/**
 * Admission of the design API and the gallery (shared/http/design-handler.ts,
 * shared/auth/design-access.ts): no credential (412), an appkey, a bad token or one without a
 * scope of the operation (401), a login session without X-Workspace-Id (400), a user without the
 * role (403).
 */
const designCallerCodes: ErrorCode[] = [
  "AUTH_HEADER_MISSING",
  "INVALID_CREDENTIALS",
  "VALIDATION_FAILED",
  "WORKSPACE_ROLE_DENIED",
];
const designCallerErrors = [400, 401, 403, 412];
/** A login session's change from another site than the service's own (shared/auth/management-caller.ts). */
const sessionOriginCodes: ErrorCode[] = ["ACCESS_DENIED"];
const workspaceHeader = [
  {
    name: "X-Workspace-Id",
    description:
      "the workspace a login session acts on (required with a session); with a Bearer token it may only repeat the token's workspace (else 401)",
  },
];
const pageQuery = { name: "page", description: "1-based page (30 a page)", type: "integer" as const };
/** Each way of holding the scopes (`a b`: both), in words. */
const scopeWords = (scopes: string[]) =>
  scopes
    .map((way) =>
      way
        .split(" ")
        .map((one) => `\`${one}\``)
        .join(" and "),
    )
    .join(" or ");
/**
 * Who may call a design or gallery operation, in words (the security requirements say the
 * scopes): the same rules for every one of them (shared/auth/design-access.ts).
 */
const designAccessText = (scopes: string[], role: "READ" | "ADMIN") =>
  `Bearer token with ${scopeWords(scopes)}, or a login session naming its workspace with \`X-Workspace-Id\`; never an appkey (401). A client-credentials token acts by its scopes alone (unlike webhook management, where it gets 403); a user (code-flow token or session) needs ${role === "READ" ? "a role in the workspace (READ or ADMIN)" : "the ADMIN role"}.`;

/** One operation of the design API or the gallery: its scope decides the role and the access text. */
const design = (
  scope: DesignOperation,
  doc: Omit<OperationDoc, "tags" | "scopes" | "headers" | "errors" | "codes"> & {
    errors?: number[];
    codes?: ErrorCode[];
    more?: string;
  },
): OperationDoc => {
  const { errors = [], codes = [], more, ...rest } = doc;
  const write = !scope.endsWith(":read");
  const scopes = operationScopes(scope);
  const access = designAccessText(scopes, write ? "ADMIN" : "READ");
  return {
    ...rest,
    tags: [scope.startsWith("templates") ? "gallery" : "designs"],
    description: more ? `${more} ${access}` : access,
    scopes,
    headers: workspaceHeader,
    errors: [...new Set([...designCallerErrors, ...errors])].sort((a, b) => a - b),
    codes: [...designCallerCodes, ...(write ? sessionOriginCodes : []), ...codes],
  };
};
const designNotFound: ErrorCode[] = ["DESIGN_NOT_FOUND"];
const versionNotFound: ErrorCode[] = ["DESIGN_NOT_FOUND", "DESIGN_VERSION_NOT_FOUND"];
const zip = (description: string): ResponseDoc => ({
  description,
  binary: "application/zip",
  headers: { "Content-Disposition": 'attachment; filename="….zip"' },
});
/** The rate class of the routes that write or check a design's bundle (shared/limits/README.md#rate-limits). */
const designWriteText =
  "Counts toward the design-write rate class (60 a minute per workspace with create, publish and the draft's save and read), before the body is read: 429 RATE_LIMITED with Retry-After above it.";
const zipBodyText =
  "The body is JSON (the bundle's JSON form) or the bundle zip itself (Content-Type: application/zip; design.json, template.liquid, style.css, einvoice.liquid when the design writes an e-invoice, assets/…), with `note` in the query.";

/**
 * Every route's documentation, keyed `METHOD path` as in the route table. The document
 * builder refuses a route without an entry, so a new route cannot go undocumented.
 */
export const operationDocs: Record<string, OperationDoc> = {
  "GET /health/check": {
    operationId: "healthCheck",
    summary: "Liveness",
    tags: ["service"],
    responses: { 200: ok("up", health) },
    errors: [],
    codes: [],
  },
  "GET /openapi.json": {
    operationId: "getOpenApiDocument",
    summary: "This document (OpenAPI 3.1)",
    tags: ["service"],
    responses: { 200: { description: "the OpenAPI document", json: z.looseObject({ openapi: z.literal("3.1.0") }) } },
    errors: [],
    codes: [],
  },
  "GET /file/designs": {
    operationId: "listDesigns",
    summary: "List designs, 30 per page",
    tags: ["designs"],
    query: [{ name: "page", description: "1-based page", type: "integer" }],
    responses: { 200: ok("one page of designs", designList) },
    errors: [400, 401, 403, 412, 429, 500],
    codes: [...callerCodes, ...memberCodes, "VALIDATION_FAILED", "INTERNAL_ERROR"],
  },
  "GET /file/designs/{designId}/thumbnail": {
    operationId: "getDesignThumbnail",
    summary: "PNG of a design's first page",
    tags: ["designs"],
    query: versionQuery,
    responses: { 200: { description: "the thumbnail", binary: "image/png" } },
    errors: [401, 403, 404, 412, 429],
    codes: [...callerCodes, ...memberCodes, ...designCodes, "FILE_NOT_FOUND"],
  },
  "GET /file/design/parameter/{designId}": {
    operationId: "getDesignParameters",
    summary: "A design's parameter schema",
    tags: ["designs"],
    query: versionQuery,
    responses: { 200: ok("the parameter specs", parameterSpec.array()) },
    errors: [401, 403, 404, 412, 429],
    codes: [...callerCodes, ...memberCodes, ...designCodes],
  },
  "POST /file/sync/single": sync("single", "application/pdf"),
  "POST /file/sync/multiple": sync("multiple", "application/zip"),
  "POST /file/async/single": async("single"),
  "POST /file/async/multiple": async("multiple"),
  "GET /file/status/{requestId}": {
    operationId: "getStatus",
    summary: "Generation status",
    tags: ["generation"],
    responses: { 200: ok("the status; Retry-After: 2 while in progress", generationStatus) },
    errors: [401, 404, 412, 429],
    codes: [...callerCodes, "REQUEST_NOT_FOUND"],
  },
  "GET /file/download/{requestId}": {
    operationId: "downloadRequest",
    summary: "ZIP of a request's files",
    tags: ["generation"],
    responses: {
      200: { description: "the ZIP", binary: "application/zip" },
      // Deviation from the plain 200 ZIP (README "Large responses"): big ZIPs come from S3.
      302: {
        description:
          "the ZIP is larger than PLATEN_ZIP_REDIRECT_BYTES (default 6,000,000): fetch it from `Location` without credentials",
        headers: {
          Location:
            "short-lived presigned GET of the ZIP (PLATEN_ZIP_URL_SECONDS, default 300 s); answers the ZIP with the same Content-Type and Content-Disposition",
        },
      },
    },
    errors: [401, 404, 409, 412, 422, 429],
    codes: downloadCodes,
  },
  "GET /file/download/{requestId}/{fileId}": {
    operationId: "downloadFile",
    summary: "One PDF",
    tags: ["generation"],
    responses: { 200: { description: "the PDF", binary: "application/pdf" } },
    errors: [401, 404, 409, 412, 422, 429],
    codes: downloadCodes,
  },
  "GET /file/download/{requestId}/{fileId}/einvoice": {
    operationId: "downloadEinvoice",
    summary: "A file's e-invoice XML",
    description:
      "The EN 16931 XML of a file whose design writes an e-invoice (`einvoice` in design.json): CII for factur-x and xrechnung, UBL for peppol-bis; for Factur-X the same bytes the PDF embeds as factur-x.xml. Files of other designs answer 404.",
    tags: ["generation"],
    responses: { 200: { description: 'the XML, `attachment; filename="<fileName>.xml"`', binary: "application/xml" } },
    errors: [401, 404, 409, 412, 422, 429],
    codes: downloadCodes,
  },
  "GET /records": records(
    {
      operationId: "searchRecords",
      summary: "Search kept records",
      description:
        "A workspace's transaction records (電子取引データ), sorted by date then number, 50 a page: every given condition applies, dates and amounts are inclusive ranges. Each search is written to the audit log.",
      query: [...recordFilterQuery, { name: "cursor", description: "`next` of the previous page", type: "string" }],
      responses: { 200: ok("a page of records", recordPageSchema) },
    },
    ["VALIDATION_FAILED"],
  ),
  "GET /records/export": records(
    {
      operationId: "exportRecords",
      summary: "Export kept records as CSV",
      description:
        "The records of the same filters as searchRecords, streamed as CSV (UTF-8 with BOM, Japanese headers; English with lang=en), for a tax officer's download request. Written to the audit log.",
      query: [...recordFilterQuery, { name: "lang", description: "`en` for English headers", type: "string" }],
      responses: { 200: { description: "the CSV", binary: "text/csv" } },
    },
    ["VALIDATION_FAILED"],
  ),
  "GET /records/verify": records(
    {
      operationId: "verifyRecords",
      summary: "Verify kept records",
      description:
        "Re-reads every PDF of the range and hashes it, recomputes every record's chain hash and its link to the previous record, and names each record that is not intact.",
      query: recordFilterQuery.filter((q) => q.name === "dateFrom" || q.name === "dateTo"),
      responses: { 200: ok("what was checked and what is broken", verifyReportSchema) },
    },
    ["VALIDATION_FAILED"],
  ),
  "GET /records/{recordId}/pdf": records(
    {
      operationId: "downloadRecord",
      summary: "A kept record's PDF",
      description: "The PDF exactly as kept, for the workspace's whole record retention. Written to the audit log.",
      responses: { 200: { description: "the PDF", binary: "application/pdf" } },
    },
    ["FILE_NOT_FOUND"],
  ),
  [`GET ${endpointPath}`]: manage("listWebhookEndpoints", "List webhook endpoints (READ)", {
    200: ok("every endpoint, never a secret", endpointListResponse),
  }),
  [`POST ${endpointPath}`]: manage(
    "createWebhookEndpoint",
    "Register a webhook endpoint (ADMIN); at most 10",
    { 201: ok("the endpoint with its signing secret, shown once", endpointWithSecretResponse) },
    createEndpointBody,
    ["WEBHOOK_ENDPOINT_LIMIT_EXCEEDED"],
  ),
  [`PATCH ${endpointPath}/{endpointId}`]: manage(
    "updateWebhookEndpoint",
    "Update an endpoint (ADMIN); a token only its client's",
    { 200: ok("the endpoint", endpointResponse) },
    updateEndpointBody,
    ["WEBHOOK_ENDPOINT_NOT_FOUND"],
  ),
  [`DELETE ${endpointPath}/{endpointId}`]: manage(
    "deleteWebhookEndpoint",
    "Delete an endpoint (ADMIN)",
    { 204: { description: "deleted" } },
    undefined,
    ["WEBHOOK_ENDPOINT_NOT_FOUND"],
  ),
  [`POST ${endpointPath}/{endpointId}/secret/regenerate`]: {
    ...manage(
      "regenerateWebhookSecret",
      "New signing secret (ADMIN); the previous one stops at once unless previousSecretHours asks for an overlap",
      { 200: ok("the new secret, shown once", regeneratedSecretResponse) },
      undefined,
      ["WEBHOOK_ENDPOINT_NOT_FOUND"],
    ),
    body: regenerateSecretBody,
    bodyOptional: true,
  },
  [`GET ${endpointPath}/{endpointId}/secret`]: manage(
    "readWebhookSecret",
    "Read the signing secret (ADMIN, login session only)",
    { 200: ok("the secret", secretResponse) },
    undefined,
    ["WEBHOOK_ENDPOINT_NOT_FOUND"],
  ),
  "PATCH /workspace/webhook": manage(
    "setWorkspaceWebhook",
    "Single-URL setting of the token's workspace (ADMIN)",
    { 200: ok("updated", endpointResponse), 201: ok("created, with its secret", endpointWithSecretResponse) },
    workspaceWebhookBody,
    ["WEBHOOK_ENDPOINT_LIMIT_EXCEEDED"],
  ),
  "PATCH /workspace/{workspaceId}/webhook": manage(
    "setWorkspaceWebhookOf",
    "Single-URL setting: the workspace's unfiltered endpoint (ADMIN)",
    { 200: ok("updated", endpointResponse), 201: ok("created, with its secret", endpointWithSecretResponse) },
    workspaceWebhookBody,
    ["WEBHOOK_ENDPOINT_LIMIT_EXCEEDED"],
  ),
  [`GET ${identityPath}`]: manage("listSigningIdentities", "List signing identities (READ), never a key", {
    200: ok("every identity, oldest first", z.object({ items: z.array(identityViewSchema) })),
  }),
  [`POST ${identityPath}`]: manage(
    "createSigningIdentity",
    "Add a signing identity (ADMIN): a PKCS#12 file and its password, or a PEM key and chain; at most 20",
    { 201: ok("the identity's certificate facts; its key is sealed and never answered", identityViewSchema) },
    createIdentityBody,
  ),
  [`DELETE ${identityPath}/{identityId}`]: manage(
    "deleteSigningIdentity",
    "Remove a signing identity (ADMIN); designs naming its label then fail with SIGNING_FAILED",
    { 204: { description: "deleted" } },
    undefined,
    ["SIGNING_IDENTITY_NOT_FOUND"],
  ),
  "GET /workspace/{workspaceId}/record-retention": manage(
    "getRecordRetention",
    "The kept records' retention in years (READ)",
    { 200: ok("7 (the default) or 10", recordRetentionBody) },
  ),
  "PUT /workspace/{workspaceId}/record-retention": manage(
    "setRecordRetention",
    "Lengthen the kept records' retention to 10 years (ADMIN); never shortened",
    { 200: ok("the retention now", recordRetentionBody) },
    recordRetentionBody,
    ["RECORD_RETENTION_SHORTENED"],
  ),
  "POST /workspace/{workspaceId}/application-token/regenerate": {
    ...manage(
      "rotateApplicationKey",
      "Rotate the application key (ADMIN); the old key stops at once",
      { 200: ok("the new key, shown once", appKeyRotationResponse) },
      undefined,
      ["APP_KEY_ROTATION_CONFLICT"],
    ),
    errors: [...managementErrors, 409],
  },
  ...designOperations(),
};

/** The design API (`/designs…`) and the gallery's authenticated routes (`/templates…`). */
function designOperations(): Record<string, OperationDoc> {
  const base = "/designs/{designId}";
  return {
    "GET /designs": design("designs:read", {
      operationId: "listWorkspaceDesigns",
      summary: "List the workspace's designs with description, draft and archive state, 30 per page",
      query: [
        pageQuery,
        { name: "q", description: "only designs whose label contains this (case-insensitive)", type: "string" },
        {
          name: "archived",
          description: "`true` lists archived designs beside the others (ADMIN, or a token with designs:write)",
          type: "string",
        },
      ],
      responses: { 200: ok("one page of designs, newest change first", designPage) },
    }),
    "POST /designs": design("designs:write", {
      operationId: "createDesign",
      summary: "Create a design from a bundle (its version 1) or as a copy of a gallery template",
      more: `${zipBodyText} {"fromTemplate": id, "label"?: …} copies a gallery template instead. The sample document (sampleParams) is rendered for the thumbnail, so a design whose sample fails is refused (422). ${designWriteText}`,
      body: createDesignBody,
      binaryBody: "application/zip",
      query: [{ name: "note", description: "the version's note, with a zip body", type: "string" }],
      responses: { 201: ok("the new design", designDetail) },
      errors: [404, 422, 429],
      codes: ["TEMPLATE_NOT_FOUND", "DESIGN_BUNDLE_INVALID", "RATE_LIMITED"],
    }),
    "POST /designs/preview": design("designs:read", {
      operationId: "previewDesign",
      summary: "Render a version, the draft or a bundle as a marked PDF (or one page as PNG); nothing is stored",
      more: "The body names one source: {designId, version}, {designId, draft: true} or {bundle: the JSON form}, with optional params (default: the design's sampleParams). Every page carries a PREVIEW mark stamped into the PDF after it is printed, and its Title is `PREVIEW <label>`; the page count is in X-Page-Count. Counts toward the preview rate class, and its pages toward the plan's monthly preview allowance (403 PREVIEW_ALLOWANCE_EXCEEDED once spent), never toward generation pages.",
      body: previewBody,
      query: [
        { name: "format", description: "`pdf` (default) or `png`", type: "string" },
        { name: "page", description: "the page shown as PNG (default 1)", type: "integer" },
      ],
      responses: {
        200: {
          description: "the preview: a PDF, or with ?format=png one page as PNG",
          binary: ["application/pdf", "image/png"],
          headers: { "X-Page-Count": "pages of the preview" },
        },
      },
      errors: [404, 422, 429, 503],
      codes: [
        ...sessionOriginCodes,
        ...versionNotFound,
        "PREVIEW_ALLOWANCE_EXCEEDED",
        "PLAN_NOT_FOUND",
        "ACTIVE_PLAN_NOT_FOUND",
        "PARAMS_TYPE_MISMATCH",
        "DESIGN_BUNDLE_INVALID",
        "RENDER_TIMEOUT",
        "DOCUMENT_PAGE_LIMIT_EXCEEDED",
        "DOCUMENT_HTML_LIMIT_EXCEEDED",
        "DOCUMENT_PDF_LIMIT_EXCEEDED",
        "RATE_LIMITED",
        "RENDER_QUEUE_FULL",
      ],
    }),
    [`GET ${base}`]: design("designs:read", {
      operationId: "getDesign",
      summary: "A design: label, description, latest version, draft state",
      responses: { 200: ok("the design", designDetail) },
      errors: [404],
      codes: designNotFound,
    }),
    [`PATCH ${base}`]: design("designs:write", {
      operationId: "updateDesign",
      summary: "Change a design's label or description (no new version)",
      body: patchBody.meta({ description: "label, description or both" }),
      responses: { 200: ok("the design", designDetail) },
      errors: [404],
      codes: designNotFound,
    }),
    [`DELETE ${base}`]: design("designs:write", {
      operationId: "archiveDesign",
      summary: "Archive a design: it leaves the lists and generation; its versions and gallery templates stay",
      responses: { 204: { description: "archived" } },
      errors: [404],
      codes: designNotFound,
    }),
    [`GET ${base}/versions`]: design("designs:read", {
      operationId: "listDesignVersions",
      summary: "A design's versions, newest first, 30 per page",
      query: [pageQuery],
      responses: { 200: ok("one page of versions", versionPage) },
      errors: [404],
      codes: designNotFound,
    }),
    [`POST ${base}/versions`]: design("designs:write", {
      operationId: "publishDesignVersion",
      summary: "Publish the next version from a bundle or from the draft",
      more: `${zipBodyText.replace("with `note` in the query", "with `note` and `expectedLatestVersion` in the query")} {"from":"draft"} publishes the draft (its warnings are errors here) and clears it. expectedLatestVersion makes the publish conditional: 409 DESIGN_VERSION_CONFLICT carries the latest version in details[0].latestVersion. ${designWriteText}`,
      body: publishVersionBody,
      binaryBody: "application/zip",
      query: [
        { name: "note", description: "the version's note, with a zip body", type: "string" },
        {
          name: "expectedLatestVersion",
          description: "publish only over this latest version, with a zip body",
          type: "integer",
        },
      ],
      responses: { 201: ok("the new version and its content hash", publishedVersion) },
      errors: [404, 409, 422, 429],
      codes: [...designNotFound, "DESIGN_VERSION_CONFLICT", "DESIGN_BUNDLE_INVALID", "RATE_LIMITED"],
    }),
    [`GET ${base}/versions/{version}`]: design("designs:read", {
      operationId: "getDesignVersion",
      summary: "One version: note, hash, parameters, page setup and sample params",
      responses: { 200: ok("the version (immutable: cached a day)", versionDetail) },
      errors: [404],
      codes: versionNotFound,
    }),
    [`GET ${base}/versions/{version}/bundle`]: design("designs:read", {
      operationId: "downloadDesignBundle",
      summary: "A version's bundle as a zip (publishing it again gives the same sha256)",
      responses: {
        200: zip(
          "the bundle zip: design.json, template.liquid, style.css, einvoice.liquid (an e-invoice design), assets/…",
        ),
      },
      errors: [404],
      codes: versionNotFound,
    }),
    [`GET ${base}/draft`]: design("designs:read", {
      operationId: "getDesignDraft",
      summary: "A design's draft in the JSON form, with what publishing it would refuse",
      responses: { 200: ok("the draft and its warnings", draftAnswer) },
      errors: [404, 429],
      codes: [...designNotFound, "RATE_LIMITED"],
      more: `404 DESIGN_NOT_FOUND also when the design has no draft. ${designWriteText.replace("Counts", "Checks the draft, so counts")}`,
    }),
    [`PUT ${base}/draft`]: design("designs:write", {
      operationId: "saveDesignDraft",
      summary: "Replace a design's draft (the JSON form); problems come back as warnings",
      more: `Only the form's own shape is refused (422): an unknown field, a template that is no string, an asset that is no base64. ${designWriteText}`,
      body: draftForm,
      responses: { 200: ok("saved, with its warnings", draftSaved) },
      errors: [404, 422, 429],
      codes: [...designNotFound, "DESIGN_BUNDLE_INVALID", "RATE_LIMITED"],
    }),
    [`DELETE ${base}/draft`]: design("designs:write", {
      operationId: "discardDesignDraft",
      summary: "Discard a design's draft (204 whether or not it had one)",
      responses: { 204: { description: "no draft now" } },
      errors: [404],
      codes: designNotFound,
    }),
    "POST /templates": design("templates:share", {
      operationId: "shareTemplate",
      summary: "Share a version of a design in the public gallery (sharing again replaces the design's entry)",
      body: shareBody,
      responses: { 201: ok("the gallery template", templateDetail) },
      errors: [404, 409],
      codes: [...versionNotFound, "TEMPLATE_LIMIT_EXCEEDED"],
      more: "A workspace shares at most 50 templates (409 `TEMPLATE_LIMIT_EXCEEDED`); sharing a design again replaces its entry and is never refused.",
    }),
    "GET /templates/{templateId}": design("templates:read", {
      operationId: "getTemplate",
      summary: "A gallery template: its public fields, version and parameters",
      responses: { 200: ok("the template", templateDetail) },
      errors: [404],
      codes: ["TEMPLATE_NOT_FOUND"],
    }),
    "GET /templates/{templateId}/bundle": design("templates:read", {
      operationId: "downloadTemplateBundle",
      summary: "A gallery template's bundle as a zip",
      responses: { 200: zip("the bundle zip") },
      errors: [404],
      codes: ["TEMPLATE_NOT_FOUND"],
    }),
    "DELETE /templates/{templateId}": design("templates:write", {
      operationId: "withdrawTemplate",
      summary: "Withdraw one of the workspace's gallery templates",
      responses: { 204: { description: "withdrawn" } },
      errors: [404],
      codes: ["TEMPLATE_NOT_FOUND"],
    }),
  };
}
