import * as z from "zod";
import { designDescription, designLabel } from "#shared/designs/design-text.ts";

/**
 * The JSON bodies of the design API that have a schema, in a module of their own (zod only):
 * the handlers read bodies with them and the OpenAPI document describes them from the same
 * objects, without loading the renderer or the AWS clients into the functions that build the
 * document.
 */

/** PATCH /designs/{id}: label and description, no new version. */
export const patchBody = z
  .object({ label: designLabel.optional(), description: designDescription.optional() })
  .strict()
  .refine((b) => b.label !== undefined || b.description !== undefined, {
    message: "send label or description",
    params: { ja: "label または description を送信してください" },
  });

/** POST /designs/preview: one of a version, the draft or a bundle in the JSON form, and optional params. */
export const previewBody = z
  .object({
    // Longer than any id: an unknown one is not found (404), never a 400.
    designId: z.string().min(1).max(1000).optional(),
    version: z.number().int().min(1).optional(),
    draft: z.literal(true).optional(),
    bundle: z.record(z.string(), z.unknown()).optional().meta({ description: "a bundle in the JSON form" }),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "the document's params (default: the design's sampleParams)" }),
  })
  .strict()
  .refine(
    (b) =>
      (b.bundle !== undefined && b.designId === undefined && b.version === undefined && b.draft === undefined) ||
      (b.bundle === undefined && b.designId !== undefined && (b.version !== undefined) !== (b.draft === true)),
    {
      message: "send {designId, version}, {designId, draft: true} or {bundle}",
      params: { ja: "{designId, version}、{designId, draft: true}、{bundle} のいずれかを送信してください" },
    },
  )
  .meta({ description: "{designId, version}, {designId, draft: true} or {bundle}; params? (default: sampleParams)" });

/** POST /templates: share a version of a design in the public gallery. */
export const shareBody = z
  .object({
    designId: z.string().min(1).max(64),
    version: z.number().int().min(1),
    description: designDescription.optional(),
    tags: z
      .array(
        z
          .string()
          .trim()
          .min(1)
          .max(40)
          .regex(/^[^\s,]+$/, "a tag is one word"),
      )
      .max(10)
      .optional(),
  })
  .strict();
