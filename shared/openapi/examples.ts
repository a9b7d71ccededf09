import type { ErrorCode } from "#shared/errors/catalogue.ts";
import type { ErrorDetail } from "#shared/errors/platen-error.ts";

/** Where examples point: `{base_url}` (ends in /v1), `{site}` and `{auth_url}` (gallery thumbnails). */
export interface ExampleUrls {
  baseUrl: string;
  siteUrl: string;
  authUrl: string;
}

/** An example request: the path below `{base_url}` (ids and query filled in), its headers and JSON body. */
export interface RequestExample {
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** An example answer: status, notable headers, and a JSON body or a note for binary bodies. */
export interface AnswerExample {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  /** What a binary (or empty) body holds, in words: the page shows it in place of a body. */
  note?: string;
}

/**
 * An example error answer: a catalogue code; the error body (README.md#errors) is built from it
 * (shared/errors/error-body.ts).
 */
export interface ErrorExample {
  code: ErrorCode;
  vars?: Record<string, string | number>;
  /** The examples answer in English, so a detail's example is worded once, as its `message`. */
  details?: (Omit<ErrorDetail, "text"> & { message: string })[];
  retryAfter?: number;
}

/** One operation's examples: a request, its successful answer, and one error answer (where it has any). */
export interface OperationExample {
  request: RequestExample;
  answer: AnswerExample;
  error?: ErrorExample;
}

/** Sample values of message placeholders, so every example error message reads as a real one. */
export const SAMPLE_VARS: Partial<Record<ErrorCode, Record<string, string | number>>> = {
  PLAN_PAGE_LIMIT_EXCEEDED: { used: 1000, limit: 1000 },
  PREVIEW_ALLOWANCE_EXCEEDED: { used: 10000, limit: 10000 },
  RATE_LIMITED: { retryAfter: 12 },
  IDEMPOTENCY_KEY_IN_PROGRESS: { retryAfter: 2 },
  FILE_NOT_READY: { retryAfter: 2 },
  FILE_GENERATION_FAILED: { failureCode: "DOCUMENT_PAGE_LIMIT_EXCEEDED", requestId: "R8fK2mQ7xPz4Lw9a" },
  WEBHOOK_ENDPOINT_LIMIT_EXCEEDED: { limit: 10 },
  TEMPLATE_LIMIT_EXCEEDED: { limit: 50 },
  APP_KEY_ROTATION_CONFLICT: { lastRotatedAt: "2026-11-25T09:30:12.000Z" },
  DOCUMENT_PAGE_LIMIT_EXCEEDED: { limit: "2,000" },
  DOCUMENT_HTML_LIMIT_EXCEEDED: { limit: "20,000,000" },
  DOCUMENT_PDF_LIMIT_EXCEEDED: { limit: "52,428,800" },
  FILE_MAPPING_TOO_LARGE: { size: 9120, limit: 8192 },
  TEMPLATE_FAILED: { reason: 'barcode "ean13" cannot encode "4912345678905": bad checksum' },
  SIGNING_FAILED: { label: "company-seal", reason: "the workspace has no signing identity of this label" },
};

/** Codes whose answers carry `Retry-After` (and `retryAfter` in the body). */
export const SAMPLE_RETRY_AFTER: Partial<Record<ErrorCode, number>> = {
  RATE_LIMITED: 12,
  IDEMPOTENCY_KEY_IN_PROGRESS: 2,
  FILE_NOT_READY: 2,
};

const APP_KEY = "plt_3nV8qLx2Rk9TzW4mYb7Hc1Pd6Fs0Gj5Ua2Ne8Ko3";
const TOKEN = "eyJhbGciOiJFUzI1NiIs…";
const WORKSPACE = "W4tq9Zr2Lm7Xc3Vb";
const DESIGN = "D7sK3nP9qX2wL5vB";
const REQUEST = "R8fK2mQ7xPz4Lw9a";
const FILE = "F3hT9cV1bN6mQ2zX";
const FILE_2 = "F5kP2wR8yT4nM7cJ";
const ENDPOINT = "E2gH7jK4lM9nB3vC";
const IDENTITY = "S7hJ3kL9mN2bV5cX";
const SECRET = "whsec_q3Zp8Xv2Lk7Tm4Rb9Nc1Wd6Hs0Fj5Ya";
const CREATED = "2026-11-25T09:30:12.000Z";
const TEMPLATE = "T6bN2xQ8wL4mR9cZ";
const SHA256 = "9f2c4e8a1b7d3f6095e4c2a8b1d7f3e6c0a9b5d2e8f4a1c7b3d9e6f2a0c5b8d1";
const UPDATED = "2026-11-27T14:05:48.000Z";

const appKey = { appkey: APP_KEY };
const bearer = { Authorization: `Bearer ${TOKEN}` };
const json = { "Content-Type": "application/json" };
const nonEmpty = "must not be empty";

const certificate = {
  recipientName: "Alex Morgan",
  courseName: "Safe Handling of Lithium Batteries",
  completionDate: "2026-11-20",
  hours: 36,
  certificateId: "C-2026-0412",
  issuer: "Northwind Training",
  signatory: { name: "Jamie Chen", title: "Head of Training" },
};

const endpoint = {
  id: ENDPOINT,
  url: "https://hooks.example.com/platen",
  enabled: true,
  designFilterType: "selected",
  targetDesignIds: [DESIGN],
  createdAt: CREATED,
  updatedAt: CREATED,
};

/** The design the design API examples create, publish and preview: design.json's fields. */
const certificateManifest = {
  label: "Certificate of Completion (A4 landscape)",
  description: "Course completion certificate with the signatory's name and title.",
  page: { size: "A4", orientation: "landscape" },
  parameters: [
    { name: "recipientName", type: "text", label: "Recipient name" },
    { name: "courseName", type: "text", label: "Course" },
    { name: "completionDate", type: "date", label: "Completion date" },
    { name: "hours", type: "number", label: "Hours" },
  ],
  sampleParams: {
    recipientName: "Alex Morgan",
    courseName: "Safe Handling of Lithium Batteries",
    completionDate: "2026-11-20",
    hours: 36,
  },
};
const certificateFiles = {
  template:
    '<main class="certificate">\n  <h1>Certificate of Completion</h1>\n  <p class="name">{{ recipientName }}</p>\n  <p>{{ courseName }}, {{ hours }} hours, {{ completionDate | date: "%B %-d, %Y" }}</p>\n</main>\n',
  style: ".certificate { text-align: center; }\n.name { font-size: 28pt; }\n",
};
const certificateParameters = certificateManifest.parameters;

/**
 * The example request and answers of every operation, keyed by operationId (operations.ts).
 * The document builder puts them into the OpenAPI document (`examples` of the request body
 * and of each response) and the site's API reference (`/docs/api`) shows them, so the two
 * agree. `test/unit/openapi-examples.test.ts` parses every body with the handler's schema.
 */
export function operationExamples(urls: ExampleUrls): Record<string, OperationExample> {
  const share = (fileId: string, shareType = "workspace") => ({
    shareType,
    url: `${urls.siteUrl}/file/${REQUEST}/${fileId}`,
    passcodeEnabled: false,
  });
  const historyUrl = `${urls.siteUrl}/output-history/${REQUEST}`;
  const fileHeaders = (pages: number) => ({
    "File-URL": historyUrl,
    "Request-Id": REQUEST,
    "X-File-Mapping": encodeURIComponent(
      JSON.stringify([{ fileId: FILE, fileName: "alex-morgan", share: share(FILE) }]),
    ),
    "X-Page-Count": String(pages),
  });
  const single = {
    designId: DESIGN,
    version: 3,
    content: { fileName: "alex-morgan", shareType: "01", passthrough: { orderId: "A-1042" }, params: certificate },
  };
  const multiple = {
    designId: DESIGN,
    version: 3,
    webhookUrl: "https://hooks.example.com/platen",
    contents: [
      { fileName: "alex-morgan", params: certificate },
      {
        fileName: "sam-rivera",
        shareType: "03",
        passcodeEnabled: true,
        params: { ...certificate, recipientName: "Sam Rivera", certificateId: "C-2026-0413" },
      },
    ],
  };
  const accepted = (files: unknown[]) => ({ status: 202, json: { requestId: REQUEST, url: historyUrl, files } });
  const endpointsPath = `/workspace/${WORKSPACE}/webhook-endpoints`;
  const identitiesPath = `/workspace/${WORKSPACE}/signing-identities`;
  const identity = {
    id: IDENTITY,
    label: "company-seal",
    subject: "CN=Example K.K., O=Example K.K., C=JP",
    issuer: "CN=Example Issuing CA, O=Example Trust, C=JP",
    serialNumber: "4f2a9c1e7b3d",
    notBefore: "2026-04-01T00:00:00.000Z",
    notAfter: "2028-03-31T23:59:59.000Z",
    fingerprintSha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    keyAlgorithm: "RSA-2048",
    createdAt: "2026-11-25T10:02:41.000Z",
  };
  const roleDenied: ErrorExample = {
    code: "WORKSPACE_ROLE_DENIED",
    details: [{ message: "this operation needs the ADMIN role" }],
  };
  const notFoundEndpoint: ErrorExample = { code: "WEBHOOK_ENDPOINT_NOT_FOUND" };
  const designPath = `/designs/${DESIGN}`;
  const designDetail = {
    id: DESIGN,
    label: certificateManifest.label,
    description: certificateManifest.description,
    latestVersion: 3,
    createdAt: CREATED,
    updatedAt: UPDATED,
    updatedBy: "Northwind CI",
    thumbnail: `${urls.baseUrl}/file/designs/${DESIGN}/thumbnail?version=3`,
    hasDraft: true,
  };
  const { createdAt: _created, ...listed } = designDetail;
  const version = (n: number, note: string, at: string) => ({
    version: n,
    createdAt: at,
    createdBy: "Northwind CI",
    note,
    sha256: `${SHA256.slice(0, 63)}${n}`,
  });
  const template = {
    id: TEMPLATE,
    label: certificateManifest.label,
    description: certificateManifest.description,
    tags: ["certificate", "training"],
    thumbnail: `${urls.authUrl}/public/templates/${TEMPLATE}/thumbnail`,
    pageSize: "A4",
    publisher: "Northwind Training",
    updatedAt: UPDATED,
    version: 3,
    parameters: certificateParameters,
  };
  const zipAnswer = (fileName: string) => ({
    status: 200,
    headers: { "Content-Type": "application/zip", "Content-Disposition": `attachment; filename="${fileName}.zip"` },
    note: "application/zip bytes: design.json, template.liquid, style.css, einvoice.liquid (an e-invoice design), assets/…",
  });
  const sampleWarning = {
    file: "design.json",
    field: "sampleParams.hours",
    line: 14,
    column: 5,
    message: "does not fit the parameter schema: expected number, got string",
  };

  return {
    healthCheck: {
      request: { path: "/health/check", headers: {} },
      answer: { status: 200, json: { status: "ok" } },
    },
    getOpenApiDocument: {
      request: { path: "/openapi.json", headers: {} },
      answer: { status: 200, json: { openapi: "3.1.0", info: { title: "Platen API", version: "1.0.0" } } },
    },
    listDesigns: {
      request: { path: "/file/designs?page=1", headers: appKey },
      answer: {
        status: 200,
        json: {
          designs: [
            {
              id: DESIGN,
              label: "Certificate of Completion (A4 landscape)",
              latestVersion: 3,
              thumbnail: `${urls.baseUrl}/file/designs/${DESIGN}/thumbnail?version=3`,
              updatedAt: CREATED,
            },
          ],
          total: 1,
          page: 1,
          pageSize: 30,
          totalPages: 1,
        },
      },
      error: { code: "AUTH_HEADER_MISSING" },
    },
    getDesignThumbnail: {
      request: { path: `/file/designs/${DESIGN}/thumbnail?version=3`, headers: appKey },
      answer: { status: 200, headers: { "Content-Type": "image/png" }, note: "image/png bytes" },
      error: { code: "DESIGN_VERSION_NOT_FOUND" },
    },
    getDesignParameters: {
      request: { path: `/file/design/parameter/${DESIGN}?version=3`, headers: appKey },
      answer: {
        status: 200,
        json: [
          { name: "recipientName", type: "text", label: "Recipient name" },
          { name: "completionDate", type: "date", label: "Completion date" },
          {
            name: "signatory",
            type: "collection",
            label: "Signatory",
            description: "The person signing the certificate.",
            spec: [
              { name: "name", type: "text", label: "Name" },
              { name: "title", type: "text", label: "Title" },
            ],
          },
        ],
      },
      error: { code: "DESIGN_NOT_FOUND" },
    },
    generateSyncSingle: {
      request: { path: "/file/sync/single", headers: { ...appKey, ...json }, body: single },
      answer: {
        status: 200,
        headers: {
          "Content-Type": "application/pdf",
          "Content-Disposition": 'attachment; filename="alex-morgan.pdf"',
          ...fileHeaders(1),
        },
        note: "application/pdf bytes (%PDF-1.7 …); with ?response=json the identifiers instead",
      },
      error: {
        code: "FILE_NAME_INVALID",
        details: [
          {
            field: "content.fileName",
            code: "FILE_NAME_INVALID",
            message: 'must not contain / \\ : * ? " < > | or control characters',
          },
        ],
      },
    },
    generateSyncMultiple: {
      request: { path: "/file/sync/multiple?response=json", headers: { ...bearer, ...json }, body: multiple },
      answer: {
        status: 200,
        headers: { "Content-Type": "application/json", ...fileHeaders(2) },
        json: {
          requestId: REQUEST,
          fileUrl: historyUrl,
          files: [
            {
              fileId: FILE,
              fileName: "alex-morgan",
              pageCount: 1,
              downloadPath: `/v1/file/download/${REQUEST}/${FILE}`,
              share: share(FILE),
            },
            {
              fileId: FILE_2,
              fileName: "sam-rivera",
              pageCount: 1,
              downloadPath: `/v1/file/download/${REQUEST}/${FILE_2}`,
              share: { ...share(FILE_2, "public"), passcodeEnabled: true, passcode: "483920" },
            },
          ],
        },
      },
      error: { code: "PLAN_PAGE_LIMIT_EXCEEDED" },
    },
    generateAsyncSingle: {
      request: {
        path: "/file/async/single",
        headers: { ...appKey, ...json, "Idempotency-Key": "order-A-1042" },
        body: single,
      },
      answer: accepted([
        { fileId: FILE, fileName: "alex-morgan", passthrough: { orderId: "A-1042" }, share: share(FILE) },
      ]),
      error: { code: "RATE_LIMITED", retryAfter: 12 },
    },
    generateAsyncMultiple: {
      request: { path: "/file/async/multiple", headers: { ...appKey, ...json }, body: multiple },
      answer: accepted([
        { fileId: FILE, fileName: "alex-morgan", share: share(FILE) },
        { fileId: FILE_2, fileName: "sam-rivera", share: { ...share(FILE_2, "public"), passcodeEnabled: true } },
      ]),
      error: {
        code: "FILE_NAME_DUPLICATED",
        details: [{ field: "contents[1].fileName", code: "FILE_NAME_DUPLICATED", message: "duplicates contents[0]" }],
      },
    },
    getStatus: {
      request: { path: `/file/status/${REQUEST}`, headers: appKey },
      answer: {
        status: 200,
        json: {
          requestId: REQUEST,
          status: "completed",
          designId: DESIGN,
          version: 3,
          files: [
            {
              fileId: FILE,
              fileName: "alex-morgan",
              pageCount: 1,
              downloadPath: `/v1/file/download/${REQUEST}/${FILE}`,
            },
          ],
          createdAt: CREATED,
          completedAt: "2026-11-25T09:30:15.000Z",
        },
      },
      error: { code: "REQUEST_NOT_FOUND" },
    },
    downloadRequest: {
      request: { path: `/file/download/${REQUEST}`, headers: appKey },
      answer: {
        status: 200,
        headers: {
          "Content-Type": "application/zip",
          "Content-Disposition": `attachment; filename="certificate-of-completion-${REQUEST}.zip"`,
        },
        note: "application/zip bytes (one PDF per file); 302 to a presigned URL when the ZIP is large",
      },
      error: { code: "FILE_NOT_READY", retryAfter: 2 },
    },
    downloadFile: {
      request: { path: `/file/download/${REQUEST}/${FILE}`, headers: appKey },
      answer: {
        status: 200,
        headers: { "Content-Type": "application/pdf", "Content-Disposition": 'attachment; filename="alex-morgan.pdf"' },
        note: "application/pdf bytes",
      },
      error: { code: "FILE_GENERATION_FAILED" },
    },
    downloadEinvoice: {
      request: { path: `/file/download/${REQUEST}/${FILE}/einvoice`, headers: appKey },
      answer: {
        status: 200,
        headers: {
          "Content-Type": "application/xml",
          "Content-Disposition": 'attachment; filename="invoice-1042.xml"',
        },
        note: "application/xml bytes: the EN 16931 invoice (CII or UBL)",
      },
      error: { code: "FILE_NOT_FOUND" },
    },
    searchRecords: {
      request: {
        path: "/records?dateFrom=2026-11-01&dateTo=2026-11-30&amountMin=10000&counterparty=サンプル",
        headers: appKey,
      },
      answer: {
        status: 200,
        json: {
          records: [
            {
              recordId: FILE,
              type: "invoice",
              date: "2026-11-21",
              amount: 55000,
              currency: "JPY",
              counterparty: "株式会社サンプル",
              number: "INV-0042",
              registrationNumber: "T8700110005901",
              designId: DESIGN,
              version: 3,
              requestId: REQUEST,
              fileId: FILE,
              fileName: "請求書-0042",
              sha256: SHA256,
              createdAt: CREATED,
              seq: 42,
              chainHash: "4b1e7c2d9a0f3e6b8c5d2a7f1e4b9c6d3a0e7f2b5c8d1a4e7b0c3f6a9d2e5b8c",
              downloadPath: `/v1/records/${FILE}/pdf`,
            },
          ],
        },
      },
      error: {
        code: "VALIDATION_FAILED",
        details: [{ field: "dateFrom", message: "not after dateTo" }],
      },
    },
    exportRecords: {
      request: { path: "/records/export?dateFrom=2026-04-01&dateTo=2027-03-31", headers: appKey },
      answer: {
        status: 200,
        headers: {
          "Content-Type": "text/csv; charset=utf-8",
          "Content-Disposition": 'attachment; filename="records.csv"',
        },
        note: "UTF-8 CSV with a BOM: 取引年月日,取引金額,通貨,取引先,書類の種類,書類番号,登録番号,ファイル名,SHA-256,記録ID,作成日時, then one row per record",
      },
      error: { code: "VALIDATION_FAILED", details: [{ field: "dateTo", message: "a date as YYYY-MM-DD" }] },
    },
    verifyRecords: {
      request: { path: "/records/verify?dateFrom=2026-11-01&dateTo=2026-11-30", headers: appKey },
      answer: {
        status: 200,
        json: { checked: 120, intact: 119, broken: [{ recordId: FILE_2, reason: "pdf-changed" }] },
      },
      error: { code: "VALIDATION_FAILED", details: [{ field: "dateFrom", message: "a date as YYYY-MM-DD" }] },
    },
    downloadRecord: {
      request: { path: `/records/${FILE}/pdf`, headers: appKey },
      answer: {
        status: 200,
        headers: {
          "Content-Type": "application/pdf",
          "Content-Disposition": "attachment; filename*=UTF-8''%E8%AB%8B%E6%B1%82%E6%9B%B8-0042.pdf",
        },
        note: "application/pdf bytes: the PDF exactly as kept (its SHA-256 is the record's sha256)",
      },
      error: { code: "FILE_NOT_FOUND" },
    },
    listWebhookEndpoints: {
      request: { path: endpointsPath, headers: bearer },
      answer: { status: 200, json: { items: [endpoint] } },
      error: { code: "WORKSPACE_MISMATCH" },
    },
    createWebhookEndpoint: {
      request: {
        path: endpointsPath,
        headers: { ...bearer, ...json },
        body: { url: "https://hooks.example.com/platen", designFilterType: "selected", targetDesignIds: [DESIGN] },
      },
      answer: { status: 201, json: { ...endpoint, secret: SECRET } },
      error: { code: "WEBHOOK_ENDPOINT_LIMIT_EXCEEDED" },
    },
    updateWebhookEndpoint: {
      request: { path: `${endpointsPath}/${ENDPOINT}`, headers: { ...bearer, ...json }, body: { enabled: false } },
      answer: { status: 200, json: { ...endpoint, enabled: false, updatedAt: "2026-11-25T10:02:41.000Z" } },
      error: notFoundEndpoint,
    },
    deleteWebhookEndpoint: {
      request: { path: `${endpointsPath}/${ENDPOINT}`, headers: bearer },
      answer: { status: 204, note: "no body" },
      error: roleDenied,
    },
    listSigningIdentities: {
      request: { path: identitiesPath, headers: bearer },
      answer: { status: 200, json: { items: [identity] } },
      error: { code: "WORKSPACE_MISMATCH" },
    },
    createSigningIdentity: {
      request: {
        path: identitiesPath,
        headers: { ...bearer, ...json },
        body: {
          label: "company-seal",
          pkcs12: "MIIKPAIBAzCCCfIGCSqGSIb3DQEHAaCCCeMEggnfMIIJ2zCCBg8GCSqGSIb3DQEHBqCCBgAwggX8",
          password: "p12-password",
        },
      },
      answer: { status: 201, json: identity },
      error: { code: "VALIDATION_FAILED" },
    },
    getRecordRetention: {
      request: { path: `/workspace/${WORKSPACE}/record-retention`, headers: bearer },
      answer: { status: 200, json: { years: 7 } },
      error: { code: "WORKSPACE_ROLE_DENIED" },
    },
    setRecordRetention: {
      request: {
        path: `/workspace/${WORKSPACE}/record-retention`,
        headers: { ...bearer, ...json },
        body: { years: 10 },
      },
      answer: { status: 200, json: { years: 10 } },
      error: { code: "RECORD_RETENTION_SHORTENED", vars: { current: 10, asked: 7 } },
    },
    deleteSigningIdentity: {
      request: { path: `${identitiesPath}/${IDENTITY}`, headers: bearer },
      answer: { status: 204, note: "no body" },
      error: { code: "SIGNING_IDENTITY_NOT_FOUND" },
    },
    regenerateWebhookSecret: {
      request: {
        path: `${endpointsPath}/${ENDPOINT}/secret/regenerate`,
        headers: { ...bearer, ...json },
        body: { previousSecretHours: 24 },
      },
      answer: {
        status: 200,
        json: {
          id: ENDPOINT,
          secret: "whsec_N4c8Vt2Qx6Lp1Zr7Wm3Kd9Hb5Fy0Gj2Ts",
          previousSecretExpiresAt: "2026-11-26T10:02:41.000Z",
        },
      },
      error: {
        code: "VALIDATION_FAILED",
        details: [{ field: "previousSecretHours", message: "must be a whole number of hours" }],
      },
    },
    readWebhookSecret: {
      request: { path: `${endpointsPath}/${ENDPOINT}/secret`, headers: { Cookie: "platen_session=…" } },
      answer: { status: 200, json: { secret: SECRET } },
      error: {
        code: "ACCESS_DENIED",
        details: [{ message: "the signing secret can be read only in a first-party login session" }],
      },
    },
    setWorkspaceWebhook: {
      request: {
        path: "/workspace/webhook",
        headers: { ...bearer, ...json },
        body: { url: "https://hooks.example.com/platen", enabled: true },
      },
      answer: { status: 200, json: { ...endpoint, designFilterType: "all", targetDesignIds: [] } },
      error: roleDenied,
    },
    setWorkspaceWebhookOf: {
      request: {
        path: `/workspace/${WORKSPACE}/webhook`,
        headers: { ...bearer, ...json },
        body: { url: "https://hooks.example.com/platen" },
      },
      answer: { status: 201, json: { ...endpoint, designFilterType: "all", targetDesignIds: [], secret: SECRET } },
      error: { code: "VALIDATION_FAILED", details: [{ field: "url", message: nonEmpty }] },
    },
    rotateApplicationKey: {
      request: { path: `/workspace/${WORKSPACE}/application-token/regenerate`, headers: bearer },
      answer: {
        status: 200,
        json: { applicationKey: "plt_7Yb2Kx9Qm4Lt8Rz1Wc6Nv3Hd5Fp0Gs2Ja7Ue4Mo", lastRotatedAt: CREATED },
      },
      error: { code: "APP_KEY_ROTATION_CONFLICT" },
    },
    listWorkspaceDesigns: {
      request: { path: "/designs?page=1&q=certificate", headers: bearer },
      answer: {
        status: 200,
        json: {
          designs: [{ ...listed, archived: false }],
          total: 1,
          page: 1,
          pageSize: 30,
          totalPages: 1,
        },
      },
      error: {
        code: "INVALID_CREDENTIALS",
        details: [{ message: "the design API takes a Bearer access token or a login session, not an appkey" }],
      },
    },
    createDesign: {
      request: {
        path: "/designs",
        headers: { ...bearer, ...json },
        body: { ...certificateManifest, ...certificateFiles, note: "first version" },
      },
      answer: {
        status: 201,
        json: {
          ...designDetail,
          latestVersion: 1,
          updatedAt: CREATED,
          thumbnail: `${urls.baseUrl}/file/designs/${DESIGN}/thumbnail?version=1`,
          hasDraft: false,
        },
      },
      error: {
        code: "DESIGN_BUNDLE_INVALID",
        details: [
          { file: "template.liquid", line: 4, column: 60, message: "undefined filter: money" },
          {
            file: "design.json",
            field: "parameters.3.type",
            line: 9,
            column: 7,
            message: 'Invalid option: expected one of "text"|"number"|"date"|"array"|"collection"|"boolean"',
          },
        ],
      },
    },
    previewDesign: {
      request: {
        path: "/designs/preview?format=png&page=1",
        headers: { ...bearer, ...json },
        body: { designId: DESIGN, draft: true, params: { ...certificateManifest.sampleParams, hours: 12 } },
      },
      answer: {
        status: 200,
        headers: { "Content-Type": "image/png", "X-Page-Count": "1" },
        note: "image/png bytes of page 1, marked PREVIEW; without ?format=png the whole PDF",
      },
      error: {
        code: "PARAMS_TYPE_MISMATCH",
        details: [
          {
            field: "params.hours",
            expected: "number",
            code: "PARAMS_TYPE_MISMATCH",
            message: "expected number, got string",
          },
        ],
      },
    },
    getDesign: {
      request: { path: designPath, headers: bearer },
      answer: { status: 200, json: designDetail },
      error: { code: "DESIGN_NOT_FOUND" },
    },
    updateDesign: {
      request: {
        path: designPath,
        headers: { ...bearer, ...json },
        body: { description: "Completion certificate, signed by the head of training." },
      },
      answer: {
        status: 200,
        json: {
          ...designDetail,
          description: "Completion certificate, signed by the head of training.",
          updatedAt: "2026-11-28T08:12:03.000Z",
        },
      },
      error: { code: "VALIDATION_FAILED", details: [{ field: "label", message: nonEmpty }] },
    },
    archiveDesign: {
      request: { path: designPath, headers: bearer },
      answer: { status: 204, note: "no body" },
      error: roleDenied,
    },
    listDesignVersions: {
      request: { path: `${designPath}/versions?page=1`, headers: bearer },
      answer: {
        status: 200,
        json: {
          versions: [
            version(3, "signatory title below the name", UPDATED),
            version(2, "landscape layout", "2026-11-26T11:20:37.000Z"),
            version(1, "first version", CREATED),
          ],
          total: 3,
          page: 1,
          pageSize: 30,
          totalPages: 1,
        },
      },
      error: { code: "DESIGN_NOT_FOUND" },
    },
    publishDesignVersion: {
      request: {
        path: `${designPath}/versions`,
        headers: { ...bearer, ...json },
        body: { from: "draft", note: "hours on the certificate", expectedLatestVersion: 3 },
      },
      answer: { status: 201, json: { id: DESIGN, version: 4, sha256: SHA256 } },
      error: {
        code: "DESIGN_VERSION_CONFLICT",
        details: [
          {
            field: "expectedLatestVersion",
            latestVersion: 4,
            message: "another publish created version 4 first",
          },
        ],
      },
    },
    getDesignVersion: {
      request: { path: `${designPath}/versions/3`, headers: bearer },
      answer: {
        status: 200,
        headers: { "Cache-Control": "private, max-age=86400, immutable" },
        json: {
          ...version(3, "signatory title below the name", UPDATED),
          parameters: certificateParameters,
          page: {
            size: "A4",
            orientation: "landscape",
            margin: { top: "10mm", right: "10mm", bottom: "10mm", left: "10mm" },
          },
          sampleParams: certificateManifest.sampleParams,
        },
      },
      error: { code: "DESIGN_VERSION_NOT_FOUND" },
    },
    downloadDesignBundle: {
      request: { path: `${designPath}/versions/3/bundle`, headers: bearer },
      answer: zipAnswer(`${DESIGN}-v3`),
      error: { code: "DESIGN_VERSION_NOT_FOUND" },
    },
    getDesignDraft: {
      // The studio's own call: a login session names its workspace in X-Workspace-Id.
      request: { path: `${designPath}/draft`, headers: { Cookie: "platen_session=…", "X-Workspace-Id": WORKSPACE } },
      answer: {
        status: 200,
        json: {
          draft: {
            ...certificateManifest,
            sampleParams: { ...certificateManifest.sampleParams, hours: "36" },
            ...certificateFiles,
            assets: {},
          },
          updatedAt: "2026-11-28T08:40:19.000Z",
          warnings: [sampleWarning],
        },
      },
      error: { code: "DESIGN_NOT_FOUND", details: [{ message: "the design has no draft" }] },
    },
    saveDesignDraft: {
      request: {
        path: `${designPath}/draft`,
        headers: { ...bearer, ...json },
        body: {
          ...certificateManifest,
          sampleParams: { ...certificateManifest.sampleParams, hours: "36" },
          ...certificateFiles,
        },
      },
      answer: { status: 200, json: { updatedAt: "2026-11-28T08:40:19.000Z", warnings: [sampleWarning] } },
      error: {
        code: "DESIGN_BUNDLE_INVALID",
        details: [{ file: "design.json", field: "colour", message: 'unknown field "colour"' }],
      },
    },
    discardDesignDraft: {
      request: { path: `${designPath}/draft`, headers: bearer },
      answer: { status: 204, note: "no body" },
      error: { code: "DESIGN_NOT_FOUND" },
    },
    shareTemplate: {
      request: {
        path: "/templates",
        headers: { ...bearer, ...json },
        body: {
          designId: DESIGN,
          version: 3,
          description: certificateManifest.description,
          tags: ["certificate", "training"],
        },
      },
      answer: { status: 201, json: template },
      error: { code: "DESIGN_VERSION_NOT_FOUND" },
    },
    getTemplate: {
      request: { path: `/templates/${TEMPLATE}`, headers: bearer },
      answer: { status: 200, json: template },
      error: { code: "TEMPLATE_NOT_FOUND" },
    },
    downloadTemplateBundle: {
      request: { path: `/templates/${TEMPLATE}/bundle`, headers: bearer },
      answer: zipAnswer(`template-${TEMPLATE}`),
      error: { code: "TEMPLATE_NOT_FOUND" },
    },
    withdrawTemplate: {
      request: { path: `/templates/${TEMPLATE}`, headers: bearer },
      answer: { status: 204, note: "no body" },
      error: { code: "TEMPLATE_NOT_FOUND" },
    },
  };
}
