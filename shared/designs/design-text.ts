import * as z from "zod";
import { zodToPlatenError } from "#shared/validation/zod-error.ts";

/** A design's label: what lists, the gallery and the studio show (README.md#the-bundle-layout). */
export const MAX_LABEL = 200;
/** A design's or a gallery template's description. */
export const MAX_DESCRIPTION = 2000;

/**
 * The one schema of a label, whatever the route: design.json of a bundle (create, publish, the
 * studio, the admin CLI), PATCH, a gallery copy's own label, and the gallery entry a share writes.
 */
export const designLabel = z.string().trim().min(1).max(MAX_LABEL);
/** The one schema of a description (design.json, PATCH, a share's gallery description). */
export const designDescription = z.string().max(MAX_DESCRIPTION);

const designText = z.object({ label: designLabel.optional(), description: designDescription.optional() });

/**
 * A label and description checked by the schemas above, for the paths that do not parse a body
 * (a gallery copy's label, the entry a share writes): 400 VALIDATION_FAILED naming the field.
 */
export function checkDesignText<T extends { label?: unknown; description?: unknown }>(
  fields: T,
): { label?: string; description?: string } {
  const parsed = designText.safeParse({ label: fields.label, description: fields.description }, { reportInput: true });
  if (!parsed.success) throw zodToPlatenError(parsed.error);
  return parsed.data;
}
