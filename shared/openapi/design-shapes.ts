import * as z from "zod";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { designLabel } from "#shared/designs/design-text.ts";
import { parameterSpec } from "./response-shapes.ts";

/**
 * Request and response bodies of the design API and the gallery (`/designs…`, `/templates…`)
 * for the OpenAPI document. The handlers (functions/api/design-routes.ts, design-render.ts) build
 * their answers in shared/designs without a schema, and read create and publish bodies by hand
 * (`readBundleBody`, `rawFromJsonForm` of shared/designs): these schemas write down the same
 * shapes. The JSON bodies that do have a handler schema (`patchBody`, `previewBody`, `shareBody`)
 * are used as they are.
 */

const iso = () => z.string().meta({ description: "ISO 8601 time (UTC)" });

/** The fields of design.json, as the JSON form carries them beside the files. */
const manifestFields = designManifestSchema.shape;

/** The files of a bundle in the JSON form: the template, the style and the assets (path → base64). */
const formFiles = {
  template: z.string().meta({ description: "template.liquid: the Liquid template of the document" }),
  style: z.string().optional().meta({ description: "style.css (default: empty)" }),
  einvoiceMapping: z.string().optional().meta({
    description:
      "einvoice.liquid: the e-invoice mapping, a Liquid template that renders the params as the invoice model (JSON). Required with `einvoice`, refused without it",
  }),
  assets: z.record(z.string(), z.string()).optional().meta({
    description:
      "assets/…: path (with or without `assets/`) → base64 bytes; images (png, jpeg, gif, svg, webp) and fonts (woff2, woff, ttf, otf)",
  }),
};

/**
 * A bundle in the JSON form: design.json's fields (label, description, page, lang, pdf, einvoice,
 * parameters, sampleParams) beside the template, the style, the e-invoice mapping and the assets. An unknown field,
 * a template that is no string or an asset that is no base64 is 422 DESIGN_BUNDLE_INVALID, as is
 * everything design.json's own checks refuse (each problem a detail naming its file and field).
 */
export const designJsonForm = z.object({ ...manifestFields, ...formFiles }).strict();

/** What a create or publish body may carry beside its source (in the query with a zip body). */
const publishFields = {
  note: z.string().max(1000).optional().meta({ description: "the version's note (≤ 1000 characters)" }),
  expectedLatestVersion: z.int().min(0).optional().meta({
    description:
      "publish only if the design's latest version is this one (0: none yet); else 409 DESIGN_VERSION_CONFLICT naming the latest",
  }),
};

const fromTemplate = z
  .object({
    fromTemplate: z.string().min(1).meta({ description: "a gallery template's id: the new design is its copy" }),
    label: designLabel
      .optional()
      .meta({ description: "the copy's label (default: the template's); the same 1–200 characters as design.json's" }),
    note: publishFields.note,
  })
  .strict();

/**
 * POST /designs as JSON: a bundle in the JSON form, or a copy of a gallery template. The
 * alternative body is the bundle zip (Content-Type: application/zip), its note in the query.
 */
export const createDesignBody = z
  .union([designJsonForm.extend({ note: publishFields.note }), fromTemplate])
  .meta({ description: "a bundle in the JSON form (with an optional note), or {fromTemplate, label?, note?}" });

/**
 * POST /designs/{id}/versions as JSON: a bundle in the JSON form, or `{"from":"draft"}` (the
 * design's draft, checked as strictly as a bundle). The alternative body is the bundle zip, its
 * note and expectedLatestVersion in the query.
 */
export const publishVersionBody = z
  .union([
    designJsonForm.extend(publishFields),
    z
      .object({
        from: z.literal("draft").meta({ description: "publish the design's draft" }),
        ...publishFields,
      })
      .strict(),
  ])
  .meta({ description: 'a bundle in the JSON form, or {from: "draft"}; each with note? and expectedLatestVersion?' });

const loose = (description: string) => z.unknown().optional().meta({ description });

/**
 * PUT /designs/{id}/draft: the JSON form, saved as it is. Only the form's own shape is refused
 * (422: an unknown field, a template that is no string, an asset that is no base64); what
 * publishing would refuse comes back as `warnings`.
 */
export const draftForm = z
  .object({
    label: loose("as design.json (checked as a warning)"),
    description: loose("as design.json (checked as a warning)"),
    page: loose("as design.json (checked as a warning)"),
    lang: loose("as design.json (checked as a warning)"),
    pdf: loose("as design.json (checked as a warning)"),
    einvoice: loose("as design.json (checked as a warning)"),
    parameters: loose("as design.json (checked as a warning)"),
    sampleParams: loose("as design.json (checked as a warning)"),
    ...formFiles,
  })
  .strict();

/** One problem of a bundle: a 422 DESIGN_BUNDLE_INVALID detail, or a draft's warning. */
export const bundleProblem = z.object({
  file: z.string().meta({ description: "design.json, template.liquid, style.css, einvoice.liquid or assets/…" }),
  field: z.string().optional().meta({
    description: "a design.json path; for einvoice.liquid, the path in the invoice model the sample invoice breaks",
  }),
  line: z.int().optional().meta({ description: "1-based line in the file" }),
  column: z.int().optional().meta({ description: "1-based column in the line" }),
  code: z.string().optional().meta({
    description: "a catalogue code (TEMPLATE_FAILED, …), or the e-invoice rule the sample invoice breaks (BR-06, …)",
  }),
  message: z.string(),
});

const designFields = {
  id: z.string(),
  label: z.string(),
  description: z.string().meta({ description: "empty when the design has none" }),
  latestVersion: z.int(),
  updatedAt: iso(),
  updatedBy: z.string().optional().meta({ description: "who published or changed it last" }),
  thumbnail: z.string().meta({ description: "PNG of the latest version's first page (GET, Bearer token)" }),
  hasDraft: z.boolean(),
};

/** GET /designs/{id}, and the answer of create and PATCH. */
export const designDetail = z.object({
  ...designFields,
  createdAt: iso(),
  archived: z.literal(true).optional().meta({ description: "present (true) only on an archived design" }),
});

const pageOf = <T extends z.ZodType>(key: string, item: T) =>
  z.object({
    [key]: z.array(item),
    total: z.int(),
    page: z.int(),
    pageSize: z.int(),
    totalPages: z.int(),
  });

/** GET /designs: 30 a page, newest change first. */
export const designPage = pageOf("designs", z.object({ ...designFields, archived: z.boolean() }));

const versionFields = {
  version: z.int(),
  createdAt: iso(),
  createdBy: z.string().meta({ description: "a user's e-mail or an OAuth client's name" }),
  note: z.string(),
  sha256: z.string().meta({ description: "content hash of the bundle: the same files, the same hash" }),
};

/** GET /designs/{id}/versions: newest first, 30 a page. */
export const versionPage = pageOf("versions", z.object(versionFields));

const margin = z.object({ top: z.string(), right: z.string(), bottom: z.string(), left: z.string() });

/** GET /designs/{id}/versions/{version}: what the version generates from. */
export const versionDetail = z.object({
  ...versionFields,
  parameters: z.array(parameterSpec),
  page: z.object({
    size: z.string(),
    width: z.string().optional(),
    height: z.string().optional(),
    orientation: z.enum(["portrait", "landscape"]),
    margin,
  }),
  sampleParams: z.record(z.string(), z.unknown()),
});

/** GET /designs/{id}/draft. */
export const draftAnswer = z.object({
  draft: z
    .object({
      label: z.unknown().optional(),
      description: z.unknown().optional(),
      page: z.unknown().optional(),
      lang: z.unknown().optional(),
      pdf: z.unknown().optional(),
      einvoice: z.unknown().optional(),
      parameters: z.unknown().optional(),
      sampleParams: z.unknown().optional(),
      template: z.string(),
      style: z.string(),
      einvoiceMapping: z.string().optional(),
      assets: z.record(z.string(), z.string()),
    })
    .meta({ description: "the draft in the JSON form, as saved" }),
  updatedAt: iso(),
  warnings: z.array(bundleProblem).meta({ description: "what publishing the draft would refuse" }),
});

/** PUT /designs/{id}/draft. */
export const draftSaved = z.object({
  updatedAt: iso(),
  warnings: z.array(bundleProblem).meta({ description: "what publishing the draft would refuse" }),
});

/** POST /designs/{id}/versions. */
export const publishedVersion = z.object({ id: z.string(), version: z.int(), sha256: z.string() });

/** GET /templates/{id}, and the answer of POST /templates. */
export const templateDetail = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string().optional(),
  tags: z.array(z.string()),
  thumbnail: z.string(),
  pageSize: z.string().meta({ description: "a paper size name (A4) or WIDTHxHEIGHT" }),
  publisher: z.string().meta({ description: "the sharing workspace's name" }),
  updatedAt: iso(),
  version: z.int().meta({ description: "the shared version of the design" }),
  parameters: z.array(parameterSpec),
});
