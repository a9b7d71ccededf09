import * as z from "zod";
import { designDescription, designLabel } from "./design-text.ts";
import { lengthToMm, NAMED_SIZES_MM, type NamedSize, PAGE_LENGTH, PAGE_LENGTH_MM, pageMm } from "./page-size.ts";

/**
 * OpenAPI getDesignParameters: one parameter of a design's schema; `spec` holds the children of
 * array/collection.
 */
export interface ParameterSpec {
  name: string;
  type: "text" | "number" | "date" | "array" | "collection" | "boolean";
  label: string;
  description?: string;
  default?: unknown;
  spec?: ParameterSpec[];
}

export const parameterTypes = ["text", "number", "date", "array", "collection", "boolean"] as const;

export const parameterSpecSchema: z.ZodType<ParameterSpec> = z.lazy(() =>
  z
    .object({
      name: z.string().min(1).max(128),
      type: z.enum(parameterTypes),
      label: z.string().min(1).max(256),
      description: z.string().max(2000).optional(),
      /** Only booleans use it (OpenAPI generateSyncSingle: booleans keep their default when missing). */
      default: z.union([z.boolean(), z.string(), z.number()]).optional(),
      spec: z.array(parameterSpecSchema).max(200).optional(),
    })
    .strict()
    .superRefine((p, ctx) => {
      const nested = p.type === "array" || p.type === "collection";
      if (nested && (!p.spec || p.spec.length === 0)) {
        ctx.addIssue({
          code: "custom",
          path: ["spec"],
          message: `${p.type} parameters need a non-empty spec`,
          params: { ja: `${p.type} パラメーターには空でない spec が必要です` },
        });
      }
      if (!nested && p.spec) {
        ctx.addIssue({
          code: "custom",
          path: ["spec"],
          message: `only array and collection parameters take a spec`,
          params: { ja: "spec を指定できるのは array と collection のパラメーターのみです" },
        });
      }
      if (p.spec && new Set(p.spec.map((c) => c.name)).size !== p.spec.length) {
        ctx.addIssue({
          code: "custom",
          path: ["spec"],
          message: "parameter names must be unique",
          params: { ja: "パラメーター名は重複できません" },
        });
      }
    }),
);

/** A margin: a CSS length (mm, cm, in, px). */
const marginLength = z.string().regex(PAGE_LENGTH);

/**
 * A custom width or height: a CSS length within PAGE_LENGTH_MM (1 cm to 5 m), so no page makes
 * the print, the thumbnail or the page images fail.
 */
const pageLength = z
  .string()
  .regex(PAGE_LENGTH)
  .refine(
    (length) => {
      const mm = lengthToMm(length);
      // A malformed length is the regex's issue; 1e-6 mm of slack for units that do not divide evenly.
      return Number.isNaN(mm) || (mm >= PAGE_LENGTH_MM.min - 1e-6 && mm <= PAGE_LENGTH_MM.max + 1e-6);
    },
    {
      message: `must be between ${PAGE_LENGTH_MM.min}mm and ${PAGE_LENGTH_MM.max}mm (5 m)`,
      params: { ja: `${PAGE_LENGTH_MM.min}mm 以上 ${PAGE_LENGTH_MM.max}mm（5 m）以下である必要があります` },
    },
  );

/**
 * Page sizes Chromium's page.pdf understands by name, or explicit CSS lengths (1 cm to 5 m each).
 * The margins must leave room on the page: margins as wide as the page made every print fail.
 */
export const pageSchema = z
  .object({
    size: z.enum(Object.keys(NAMED_SIZES_MM) as [NamedSize, ...NamedSize[]]).default("A4"),
    width: pageLength.optional(),
    height: pageLength.optional(),
    orientation: z.enum(["portrait", "landscape"]).default("portrait"),
    margin: z
      .object({
        top: marginLength.default("10mm"),
        right: marginLength.default("10mm"),
        bottom: marginLength.default("10mm"),
        left: marginLength.default("10mm"),
      })
      .strict()
      // prefault: zod 4's default() skips parsing, so the margins' own defaults would be lost
      .prefault({}),
  })
  .strict()
  .refine((p) => (p.width === undefined) === (p.height === undefined), {
    message: "width and height must be given together",
    params: { ja: "width と height は両方指定する必要があります" },
  })
  .superRefine((p, ctx) => {
    const { width, height } = pageMm(p);
    const m = (side: keyof typeof p.margin) => lengthToMm(p.margin[side]);
    const room = [
      ["top", "bottom", height, "high", "高さ"],
      ["left", "right", width, "wide", "幅"],
    ] as const;
    for (const [first, second, length, word, wordJa] of room) {
      const margins = m(first) + m(second);
      // Fits, or a length the other checks refuse (a malformed margin, a page out of bounds).
      if (!(margins >= length) || length < PAGE_LENGTH_MM.min - 1e-6 || length > PAGE_LENGTH_MM.max + 1e-6) continue;
      const mm = (n: number) => `${Math.round(n * 100) / 100}mm`;
      ctx.addIssue({
        code: "custom",
        path: ["margin", first],
        message: `the ${first} and ${second} margins (${mm(margins)} together) leave no room on a page ${mm(length)} ${word}`,
        params: {
          ja: `${first} と ${second} の余白（合計 ${mm(margins)}）が、${wordJa} ${mm(length)} のページに収まりません`,
        },
      });
    }
  });

/** Text the PDF's Info dictionary carries: well-formed Unicode, so it encodes as UTF-16 without loss. */
const infoText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !LONE_SURROGATE.test(s), {
      message: "must be well-formed Unicode (no lone surrogates)",
      params: { ja: "正しい Unicode 文字列である必要があります（対になっていないサロゲートは使用できません）" },
    });

/** In a `u` regular expression a surrogate matches only when it is not half of a pair. */
export const LONE_SURROGATE = /\p{Cs}/u;

export const MAX_PDF_KEYWORDS = 32;

/**
 * The PDF's document information (Info `Title`, `Author`, `Subject`, `Keywords`), in design.json and,
 * field by field over it, in a request's content item (shared/render/README.md#document-metadata).
 */
export const pdfMetadataSchema = z
  .object({
    title: infoText(500).optional().meta({ description: "The PDF's Title (default: the file name)." }),
    author: infoText(500).optional().meta({ description: "The PDF's Author." }),
    subject: infoText(1000).optional().meta({ description: "The PDF's Subject." }),
    keywords: z
      .array(infoText(200))
      .max(MAX_PDF_KEYWORDS)
      .optional()
      .meta({ description: `The PDF's Keywords, at most ${MAX_PDF_KEYWORDS}: written as one string, joined by ", ".` }),
  })
  .strict();

export type PdfMetadata = z.infer<typeof pdfMetadataSchema>;

/**
 * The template global holding the generated file's own identity (shared/render/README.md#what-a-template-sees).
 * Top-level parameters may not take this name.
 */
export const FILE_GLOBAL = "file";

/** A signature's reason, location or contact: one line of text. */
const signatureText = z
  .string()
  .min(1)
  .max(256)
  .refine((text) => !/\p{Cc}/u.test(text), "one line of text, without control characters");

/** One Liquid expression of design.json `record` (what goes between `{{` and `}}`). */
const recordExpression = z.string().trim().min(1).max(500);

/** The kinds of document a record may be (design.json `record.type`). */
export const RECORD_TYPES = ["invoice", "quotation", "delivery-note", "order", "receipt", "contract", "other"] as const;

/** design.json `record`: which values of a generated file make its transaction record (shared/records/README.md). */
export const recordSpecSchema = z
  .object({
    type: z.enum(RECORD_TYPES),
    date: recordExpression,
    amount: recordExpression,
    currency: recordExpression.optional(),
    counterparty: recordExpression,
    number: recordExpression.optional(),
    registrationNumber: recordExpression.optional(),
  })
  .strict();

export type RecordSpec = z.infer<typeof recordSpecSchema>;

/** The bundle file holding a design's e-invoice mapping (design.json `einvoice.data`). */
export const EINVOICE_MAPPING_FILE = "einvoice.liquid";

/** `design.json` of a design bundle folder. */
export const designManifestSchema = z
  .object({
    label: designLabel,
    description: designDescription.optional(),
    page: pageSchema.prefault({}),
    /** The document's language (BCP 47, e.g. `ja`, `en-US`): `<html lang>`, and the PDF's /Lang when tagged. */
    lang: z
      .string()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, "a language tag such as ja or en-US")
      .optional(),
    /**
     * Accessibility of the PDF: `tagged` writes Chromium's structure tree (headings, tables,
     * lists, alt text; /MarkInfo /Marked true), `outline` a bookmark per heading. Off by
     * default: tagging costs render time and size (shared/render/README.md "Tagged PDF").
     */
    pdf: z
      .object({
        tagged: z.boolean().default(false),
        outline: z.boolean().default(false),
        /** An archival PDF (shared/render/README.md#pdfa-and-embedded-files); `factur-x` implies PDF/A-3b. */
        standard: z.enum(["PDF/A-2b", "PDF/A-3b"]).optional(),
      })
      .strict()
      .prefault({}),
    /**
     * The design writes an EN 16931 e-invoice (shared/einvoice/README.md): `data` names the bundle's
     * mapping, a Liquid template rendering the request's params as the invoice model (JSON).
     */
    einvoice: z
      .object({
        // `zugferd` is Factur-X's German name, the same file: read as `factur-x` from here on.
        format: z
          .enum(["factur-x", "zugferd", "xrechnung", "peppol-bis"])
          .overwrite((format) => (format === "zugferd" ? "factur-x" : format)),
        // A custom check, not z.literal: its message says which names are allowed, in both languages.
        data: z
          .string()
          .refine((name) => name === EINVOICE_MAPPING_FILE, {
            message: `names the mapping file, and only ${EINVOICE_MAPPING_FILE} is supported for now`,
            params: { ja: `マッピングファイルの名前です。現在指定できるのは ${EINVOICE_MAPPING_FILE} のみです` },
          })
          .meta({ description: `the mapping file: \`${EINVOICE_MAPPING_FILE}\` (the only name for now)` }),
      })
      .strict()
      .optional(),
    /**
     * Every generated PDF is signed (PAdES baseline, shared/signing/README.md) with the workspace's signing
     * identity of this label; previews and thumbnails are not. `visible` places the signature's box
     * (lengths as the page margins take them, from the page's top-left corner); absent, it is invisible.
     */
    signature: z
      .object({
        identity: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "the label of one of the workspace's signing identities"),
        reason: signatureText.optional(),
        location: signatureText.optional(),
        contactInfo: signatureText.optional(),
        level: z.enum(["B-B", "B-T"]),
        visible: z
          .object({
            page: z.number().int().min(1).max(10_000),
            x: marginLength,
            y: marginLength,
            width: marginLength,
            height: marginLength,
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /**
     * Every generated file becomes a kept transaction record (shared/records/README.md): each value is a
     * Liquid expression evaluated against the params (and `einvoice`); publishing checks that they parse.
     */
    record: recordSpecSchema.optional(),
    /** Info dictionary entries of every PDF of the design; a request's `metadata` overrides them field by field. */
    metadata: pdfMetadataSchema.optional(),
    parameters: z.array(parameterSpecSchema).max(500),
    /** Params used to render the thumbnail at publish time (and by the benchmark). */
    sampleParams: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (new Set(m.parameters.map((p) => p.name)).size !== m.parameters.length) {
      ctx.addIssue({
        code: "custom",
        path: ["parameters"],
        message: "parameter names must be unique",
        params: { ja: "パラメーター名は重複できません" },
      });
    }
    const reserved = m.parameters.findIndex((p) => p.name === FILE_GLOBAL);
    if (reserved >= 0) {
      // A parameter of that name would hide the file's own identity from the template (Liquid reads
      // params before globals), so `{{ file.share.url }}` would print whatever the client sent.
      ctx.addIssue({
        code: "custom",
        path: ["parameters", reserved, "name"],
        message: `"${FILE_GLOBAL}" is reserved: templates read the generated file's id, name and share URL as {{ ${FILE_GLOBAL}.id }}, {{ ${FILE_GLOBAL}.name }}, {{ ${FILE_GLOBAL}.share.url }}; rename the parameter`,
        params: {
          ja: `「${FILE_GLOBAL}」は予約済みの名前です（テンプレートは生成ファイルの ID・名前・共有 URL を {{ ${FILE_GLOBAL}.id }}、{{ ${FILE_GLOBAL}.name }}、{{ ${FILE_GLOBAL}.share.url }} で読みます）。パラメーター名を変えてください`,
        },
      });
    }
    if (m.einvoice?.format === "factur-x" && m.pdf.standard !== undefined && m.pdf.standard !== "PDF/A-3b") {
      ctx.addIssue({
        code: "custom",
        path: ["pdf", "standard"],
        message: `a factur-x e-invoice is a PDF/A-3b carrying its XML: leave pdf.standard out or set it to PDF/A-3b (${m.pdf.standard} admits no embedded XML)`,
        params: {
          ja: `factur-x の電子インボイスは XML を埋め込んだ PDF/A-3b です。pdf.standard を省略するか PDF/A-3b にしてください（${m.pdf.standard} には XML を埋め込めません）`,
        },
      });
    }
    signatureProblems(m.signature?.visible, m, ctx);
  })
  // Factur-X implies PDF/A-3b: the parsed manifest says so, so every reader sees the standard it prints to.
  .overwrite((m) =>
    m.einvoice?.format === "factur-x" && m.pdf.standard === undefined
      ? { ...m, pdf: { ...m.pdf, standard: "PDF/A-3b" as const } }
      : m,
  );

export type DesignManifest = z.infer<typeof designManifestSchema>;

/**
 * A visible signature's box must lie on the page, and is drawn in a standard font that a PDF/A file
 * may not use unembedded: a PDF/A design signs invisibly.
 */
function signatureProblems(
  visible: Record<"x" | "y" | "width" | "height", string> | undefined,
  m: { page: z.infer<typeof pageSchema>; pdf: { standard?: string }; einvoice?: { format: string } },
  ctx: z.RefinementCtx,
): void {
  if (!visible) return;
  if (m.pdf.standard !== undefined || m.einvoice?.format === "factur-x") {
    ctx.addIssue({
      code: "custom",
      path: ["signature", "visible"],
      message:
        "a PDF/A document is signed invisibly (a visible signature's text would need a font PDF/A does not allow unembedded): leave visible out",
      params: {
        ja: "PDF/A の文書は不可視の署名になります（可視署名の文字には PDF/A が埋め込みなしでは認めないフォントが必要です）。visible を省略してください",
      },
    });
    return;
  }
  if (![visible.x, visible.y, visible.width, visible.height].every((l) => PAGE_LENGTH.test(l))) return;
  const page = pageMm(m.page);
  const [x, y, width, height] = [visible.x, visible.y, visible.width, visible.height].map(lengthToMm) as [
    number,
    number,
    number,
    number,
  ];
  if (width <= 0 || height <= 0 || x + width > page.width + 1e-6 || y + height > page.height + 1e-6) {
    const mm = (n: number) => `${Math.round(n * 100) / 100}mm`;
    ctx.addIssue({
      code: "custom",
      path: ["signature", "visible"],
      message: `the box must have a size and lie on the page (${mm(page.width)} × ${mm(page.height)})`,
      params: {
        ja: `枠には大きさが必要で、ページ（${mm(page.width)} × ${mm(page.height)}）の内側に収まる必要があります`,
      },
    });
  }
}
export type PageSetup = DesignManifest["page"];

/** A whole bundle as stored: manifest + template + css + assets (path → bytes). */
export interface DesignBundle {
  manifest: DesignManifest;
  template: string;
  css: string;
  /** `einvoice.liquid`, the e-invoice mapping of a design with `einvoice` (shared/einvoice/README.md). */
  einvoiceMapping?: string;
  assets: Record<string, { contentType: string; body: Buffer }>;
}
