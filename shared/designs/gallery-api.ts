import { type GalleryTemplate, publicTemplate } from "./gallery.ts";

/** GET /templates/{id}: the public fields, the shared version's number and its parameters. */
export const templateDetail = (t: GalleryTemplate, thumbnailUrl: string) => ({
  ...publicTemplate(t, thumbnailUrl),
  version: t.version,
  parameters: t.parameters,
});
