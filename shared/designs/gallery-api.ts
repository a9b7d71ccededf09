import { z } from "zod";
import { type GalleryTemplate, publicTemplate } from "./gallery.ts";

/** POST /templates: share a version of a design in the public gallery. */
export const shareBody = z
  .object({
    designId: z.string().min(1).max(64),
    version: z.number().int().min(1),
    description: z.string().max(2000).optional(),
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

/** GET /templates/{id}: the public fields, the shared version's number and its parameters. */
export const templateDetail = (t: GalleryTemplate, thumbnailUrl: string) => ({
  ...publicTemplate(t, thumbnailUrl),
  version: t.version,
  parameters: t.parameters,
});
