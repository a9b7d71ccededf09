import * as z from "zod";
import { LONE_SURROGATE, pdfMetadataSchema } from "#shared/designs/bundle-schema.ts";
import type { ErrorCode } from "#shared/errors/catalogue.ts";

/**
 * OpenAPI generateSyncSingle: slash, backslash, colon, asterisk, question mark, double quote, <, >, | and
 * U+0000–U+001F.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the spec forbids exactly these control characters
const FORBIDDEN_FILE_NAME = /[/\\:*?"<>|\u0000-\u001f]/;
export const MAX_CONTENTS = 100;
export const MAX_WEBHOOK_URL = 2048;

/**
 * A rule of ours that zod has no words for: both languages travel with the issue, and
 * `kind` names the catalogue code it stands for (mixed kinds become VALIDATION_FAILED, README.md#errors).
 */
const rule = (message: string, ja: string, kind?: ErrorCode) => ({
  code: "custom" as const,
  message,
  params: { ja, ...(kind && { kind }) },
});

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const notObject = rule("must be a JSON object", "JSON オブジェクトである必要があります", "PARAMS_NOT_OBJECT");

const fileName = z
  .string()
  .min(1)
  .max(255)
  .superRefine((name, ctx) => {
    if (FORBIDDEN_FILE_NAME.test(name)) {
      ctx.addIssue(
        rule(
          'must not contain / \\ : * ? " < > | or control characters',
          '/ \\ : * ? " < > | や制御文字は使用できません',
          "FILE_NAME_INVALID",
        ),
      );
    }
  });

/** passthrough is kept with every file record and webhook: bounded well below DynamoDB's 400 KB items. */
export const MAX_PASSTHROUGH_BYTES = 16 * 1024;

const passthrough = z.unknown().superRefine((value, ctx) => {
  if (!isPlainObject(value)) {
    ctx.addIssue(notObject);
    return;
  }
  if (Buffer.byteLength(JSON.stringify(value), "utf8") > MAX_PASSTHROUGH_BYTES) {
    ctx.addIssue(
      rule(
        `must be at most ${MAX_PASSTHROUGH_BYTES} bytes as JSON`,
        `JSON で ${MAX_PASSTHROUGH_BYTES} バイト以下である必要があります`,
      ),
    );
  }
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== "string" && !(typeof v === "number" && Number.isFinite(v))) {
      ctx.addIssue({ ...rule("must be a string or a number", "文字列または数値である必要があります"), path: [key] });
    }
  }
});

const params = z.unknown().superRefine((value, ctx) => {
  if (value === undefined) ctx.addIssue(rule("is required", "必須です"));
  else if (!isPlainObject(value)) ctx.addIssue(notObject);
});

export const MAX_PASSWORD_CHARS = 128;
/** The PDF 2.0 security handler reads only the first 127 bytes of a password's UTF-8. */
export const MAX_PASSWORD_BYTES = 127;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A PDF password. Refused rather than altered: lone surrogates (no UTF-8 form), control characters, text
 * that NFKC normalisation changes (viewers that apply SASLprep would then derive another key than viewers
 * that do not, e.g. for full-width digits), and more than 127 UTF-8 bytes (the rest would be ignored).
 */
const password = z
  .string()
  .min(1)
  .max(MAX_PASSWORD_CHARS)
  .superRefine((value, ctx) => {
    if (LONE_SURROGATE.test(value) || CONTROL_CHARACTER.test(value)) {
      ctx.addIssue(
        rule(
          "must be well-formed Unicode without control characters",
          "制御文字を含まない正しい Unicode 文字列である必要があります",
        ),
      );
    } else if (value.normalize("NFKC") !== value) {
      ctx.addIssue(
        rule(
          "must be in Unicode NFKC form (e.g. half-width digits and Latin letters)",
          "Unicode の NFKC 正規化済みの文字列である必要があります（例: 半角の英数字）",
        ),
      );
    } else if (Buffer.byteLength(value, "utf8") > MAX_PASSWORD_BYTES) {
      ctx.addIssue(
        rule(
          `must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8`,
          `UTF-8 で ${MAX_PASSWORD_BYTES} バイト以下である必要があります`,
        ),
      );
    }
  });

/**
 * Platen extension: the PDF encrypted with AES-256 (PDF 2.0 security handler, revision 6). Passwords are
 * never stored, logged or echoed (shared/generation/README.md#password-protected-pdfs).
 */
export const protectionSchema = z
  .object({
    password: password
      .meta({
        description: `Needed to open the PDF: 1–${MAX_PASSWORD_CHARS} characters, at most ${MAX_PASSWORD_BYTES} bytes in UTF-8, NFKC-normalised, no control characters. Without it the PDF opens freely and only the permissions hold.`,
      })
      .optional(),
    ownerPassword: password
      .meta({
        description:
          "Lifts the permissions in a viewer that honours them. Default: a random one that is never stored, so nobody can lift them.",
      })
      .optional(),
    allowPrinting: z.boolean().default(true).meta({ description: "Printing (high resolution). Default `true`." }),
    allowCopying: z
      .boolean()
      .default(true)
      .meta({ description: "Copying text and images. Default `true`. Screen readers may always extract text." }),
    allowModifying: z.boolean().default(true).meta({
      description:
        "Changing the document: content, annotations, form fields, inserting or removing pages. Default `true`.",
    }),
  })
  .strict();

/** OpenAPI generateSyncSingle: one file to generate. Unknown properties are refused (VALIDATION_FAILED). */
// The descriptions (`meta`) show in the OpenAPI document and the site's API reference (/docs/api).
export const contentItemSchema = z
  .object({
    fileName: fileName.meta({
      description:
        "The PDF's name without `.pdf`: 1–255 characters, none of / \\ : * ? \" < > | or control characters.",
    }),
    shareType: z.enum(["01", "02", "03"]).default("01").meta({
      description: "Who may open the share URL: `01` workspace members, `02` invited users, `03` anyone with the link.",
    }),
    passcodeEnabled: z
      .boolean()
      .default(false)
      .meta({ description: "Protect the share URL with a passcode, answered once in `share.passcode`." }),
    passthrough: passthrough
      .meta({
        description: `Your own metadata: string or number values, at most ${MAX_PASSTHROUGH_BYTES} bytes as JSON; returned with the file, in webhooks, and searchable in the output history.`,
      })
      .optional(),
    params: params.meta({
      description: "The design's parameters, a JSON object (GET /v1/file/design/parameter/{designId} lists them).",
    }),
    protection: protectionSchema
      .meta({
        description:
          "Platen extension: encrypt the PDF (AES-256, PDF 2.0 revision 6) with a password to open it and/or permissions (printing, copying, modifying). Passwords are never stored, logged or echoed.",
      })
      .optional(),
    metadata: pdfMetadataSchema
      .meta({
        description:
          "Platen extension: the PDF's Title, Author, Subject and Keywords, each overriding the design's `metadata`. Title defaults to `fileName`.",
      })
      .optional(),
  })
  .strict();

const common = {
  designId: z.string().min(1).meta({ description: "The design to fill (`id` of GET /v1/file/designs)." }),
  version: z
    .number()
    .int()
    .meta({ description: "The design version (`latestVersion` of GET /v1/file/designs, or an earlier one)." }),
  webhookUrl: z
    .string()
    .max(MAX_WEBHOOK_URL)
    .meta({ description: "A registered, enabled webhook endpoint of the workspace, notified when the request ends." })
    .optional(),
};

export const singleRequestSchema = z
  .object({ ...common, content: contentItemSchema.meta({ description: "The file to generate." }) })
  .strict();

export const multipleRequestSchema = z
  .object({
    ...common,
    contents: z
      .array(contentItemSchema)
      .min(1)
      .superRefine((items, ctx) => {
        if (items.length > MAX_CONTENTS) {
          ctx.addIssue(
            rule(`must hold at most ${MAX_CONTENTS} items`, `最大 ${MAX_CONTENTS} 件までです`, "TOO_MANY_CONTENTS"),
          );
        }
      })
      .meta({
        description: `The files to generate: 1 to ${MAX_CONTENTS}, each \`fileName\` unique (case-insensitive).`,
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
