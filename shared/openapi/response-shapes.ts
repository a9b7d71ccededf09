import * as z from "zod";

/**
 * Response bodies of the generation, status and design routes (OpenAPI generation, status and design
 * operations; README.md#errors) for the OpenAPI document. Those handlers build their bodies in the domain
 * without a schema; the management routes' bodies come from shared/webhooks/endpoint-schemas.ts instead.
 */
const shareType = z.enum(["workspace", "invited", "public"]);
const passthrough = z.record(z.string(), z.union([z.string(), z.number()]));

export const errorBody = z
  .object({
    statusCode: z.int(),
    code: z.string().meta({ description: "Catalogue code; branch on this, never on message." }),
    message: z.union([z.string(), z.array(z.string())]),
    error: z.string(),
    details: z.array(
      z.object({
        field: z.string().optional(),
        expected: z.string().optional(),
        code: z.string().optional(),
        message: z.string(),
        file: z.string().optional().meta({ description: "the bundle file a DESIGN_BUNDLE_INVALID detail is about" }),
        line: z.int().optional().meta({ description: "1-based line in `file`" }),
        column: z.int().optional().meta({ description: "1-based column in `line`" }),
        latestVersion: z
          .int()
          .optional()
          .meta({ description: "DESIGN_VERSION_CONFLICT: the design's latest version, to publish against" }),
      }),
    ),
    docsUrl: z.string(),
    retryAfter: z.int().optional(),
  })
  .meta({ description: "The error body of every refused request: statusCode, code, error, message, details, docsUrl" });

const share = z.object({ shareType, url: z.string(), passcodeEnabled: z.boolean(), passcode: z.string().optional() });
const fileEntry = z.object({ fileId: z.string(), fileName: z.string(), passthrough: passthrough.optional(), share });

export const asyncAccepted = z.object({ requestId: z.string(), url: z.string(), files: z.array(fileEntry) });

export const identifiersJson = z.object({
  requestId: z.string(),
  fileUrl: z.string(),
  files: z.array(
    z.object({
      fileId: z.string(),
      fileName: z.string(),
      pageCount: z.int(),
      downloadPath: z.string(),
      share,
      passthrough: passthrough.optional(),
    }),
  ),
});

export const generationStatus = z.object({
  requestId: z.string(),
  status: z.enum(["queued", "processing", "completed", "failed"]),
  designId: z.string(),
  version: z.int().optional(),
  files: z.array(
    z.object({ fileId: z.string(), fileName: z.string(), pageCount: z.int().optional(), downloadPath: z.string() }),
  ),
  failedFiles: z
    .array(z.object({ fileId: z.string().optional(), fileName: z.string(), code: z.string(), message: z.string() }))
    .optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  createdAt: z.string().optional(),
  completedAt: z.string().optional(),
});

interface ParameterSpec {
  name: string;
  type: "text" | "number" | "date" | "array" | "collection" | "boolean";
  label: string;
  description?: string;
  default?: boolean | string | number;
  spec?: ParameterSpec[];
}
export const parameterSpec: z.ZodType<ParameterSpec> = z.object({
  name: z.string(),
  type: z.enum(["text", "number", "date", "array", "collection", "boolean"]),
  label: z.string(),
  description: z.string().optional(),
  default: z.union([z.boolean(), z.string(), z.number()]).optional(),
  get spec() {
    return z.array(parameterSpec).optional();
  },
});

export const designList = z.object({
  designs: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      latestVersion: z.int(),
      thumbnail: z.string(),
      updatedAt: z.string(),
    }),
  ),
  total: z.int(),
  page: z.int(),
  pageSize: z.int(),
  totalPages: z.int(),
});

export const health = z.object({ status: z.literal("ok") });
