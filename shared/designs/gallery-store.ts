import type { Clock } from "#shared/clock.ts";
import { type GalleryTemplate, getTemplate, shareTemplate, templateOfDesign, withdrawTemplate } from "./gallery.ts";
import { type GalleryFilter, type GalleryPage, searchTemplates } from "./gallery-pages.ts";

/**
 * The template gallery as the design API, the studio and the public pages use it. `dynamoGallery`
 * keeps it in the designs table (gallery.ts writes and reads entries, gallery-pages.ts pages through
 * them); every entry it reads is decoded with `galleryTemplateSchema`.
 */
export interface GalleryStore {
  share(input: Parameters<typeof shareTemplate>[0], clock: Clock): Promise<GalleryTemplate>;
  /** 404 TEMPLATE_NOT_FOUND when there is none. */
  get(id: string): Promise<GalleryTemplate>;
  /** The design's entry, if the workspace shares it. */
  ofDesign(workspaceId: string, designId: string): Promise<GalleryTemplate | undefined>;
  /** 404 TEMPLATE_NOT_FOUND for another workspace's template. */
  withdraw(workspaceId: string, id: string): Promise<void>;
  search(filter: GalleryFilter): Promise<GalleryPage>;
}

/** The gallery over the designs table. */
export const dynamoGallery: GalleryStore = {
  share: shareTemplate,
  get: getTemplate,
  ofDesign: templateOfDesign,
  withdraw: withdrawTemplate,
  search: searchTemplates,
};
