import { z } from "zod";
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
