import { type ZodType, z } from "zod";
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
import { multipleRequestSchema, singleRequestSchema } from "#shared/generation/request-schema.ts";
import { appKeyRotationResponse } from "#shared/workspaces/workspace-schemas.ts";
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
  binary?: string;
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
/** Downloads (shared/generation/download.ts). */
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
};
