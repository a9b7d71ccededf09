import { z } from "zod";
import type { ErrorCode } from "#shared/errors/catalogue.ts";

/** spec 2.1: slash, backslash, colon, asterisk, question mark, double quote, <, >, | and U+0000–U+001F. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the spec forbids exactly these control characters
const FORBIDDEN_FILE_NAME = /[/\\:*?"<>|\u0000-\u001f]/;
export const MAX_CONTENTS = 100;
export const MAX_WEBHOOK_URL = 2048;

/** The catalogue code a zod issue stands for; mixed kinds become VALIDATION_FAILED (spec 7.1). */
const kind = (code: ErrorCode) => ({ params: { kind: code } });

/** zod 4's one error option: "is required" when the key is missing, else what the value must be. */
const typeError = (expected: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : expected),
});

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const fileName = z
  .string(typeError("must be a string"))
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .superRefine((name, ctx) => {
    if (FORBIDDEN_FILE_NAME.test(name)) {
      ctx.addIssue({ code: "custom", message: 'must not contain / \\ : * ? " < > | or control characters', ...kind("FILE_NAME_INVALID") });
    }
  });

/** passthrough is kept with every file record and webhook: bounded well below DynamoDB's 400 KB items. */
export const MAX_PASSTHROUGH_BYTES = 16 * 1024;

const passthrough = z.unknown().superRefine((value, ctx) => {
  if (!isPlainObject(value)) {
    ctx.addIssue({ code: "custom", message: "must be a JSON object", ...kind("PARAMS_NOT_OBJECT") });
    return;
  }
  if (Buffer.byteLength(JSON.stringify(value), "utf8") > MAX_PASSTHROUGH_BYTES) {
    ctx.addIssue({ code: "custom", message: `must be at most ${MAX_PASSTHROUGH_BYTES} bytes as JSON` });
  }
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== "string" && !(typeof v === "number" && Number.isFinite(v))) {
      ctx.addIssue({ code: "custom", path: [key], message: "must be a string or a number" });
    }
  }
});

const params = z.unknown().superRefine((value, ctx) => {
  if (!isPlainObject(value)) ctx.addIssue({ code: "custom", message: "must be a JSON object", ...kind("PARAMS_NOT_OBJECT") });
});

/** spec 2.1: one file to generate. Unknown properties are refused (VALIDATION_FAILED). */
export const contentItemSchema = z
  .object({
    fileName,
    shareType: z.enum(["01", "02", "03"], { error: "must be one of 01, 02, 03" }).default("01"),
    passcodeEnabled: z.boolean({ error: "must be a boolean" }).default(false),
    passthrough: passthrough.optional(),
    params: z.custom<unknown>((v) => v !== undefined, { error: "is required" }).pipe(params),
  })
  .strict();

const common = {
  designId: z.string(typeError("must be a string")).min(1, "must not be empty"),
  version: z.number(typeError("must be an integer")).int("must be an integer"),
  webhookUrl: z
    .string({ error: "must be a string" })
    .max(MAX_WEBHOOK_URL, `must be at most ${MAX_WEBHOOK_URL} characters`)
    .optional(),
};

export const singleRequestSchema = z.object({ ...common, content: contentItemSchema }).strict();

export const multipleRequestSchema = z
  .object({
    ...common,
    contents: z
      .array(contentItemSchema, typeError("must be an array"))
      .min(1, "must hold at least one item")
      .superRefine((items, ctx) => {
        if (items.length > MAX_CONTENTS) {
          ctx.addIssue({ code: "custom", message: `must hold at most ${MAX_CONTENTS} items`, ...kind("TOO_MANY_CONTENTS") });
        }
      }),
  })
  .strict();

export type ContentItem = z.infer<typeof contentItemSchema> & {
  params: Record<string, unknown>;
  passthrough?: Record<string, string | number>;
};
export type SingleRequest = z.infer<typeof singleRequestSchema>;
export type MultipleRequest = z.infer<typeof multipleRequestSchema>;

/** Both request shapes as one: a single request is a multiple of one item. */
export interface GenerationRequest {
  mode: "single" | "multiple";
  designId: string;
  version: number;
  webhookUrl?: string;
  contents: ContentItem[];
}
