import type { previewSource } from "#shared/authoring/preview.ts";
import { workspaceHasSigningLabel } from "#shared/signing/identity-store.ts";
import { systemClock } from "#shared/clock.ts";
import type { PublishDeps } from "#shared/designs/publish-design.ts";
import { countRate } from "#shared/http/admit.ts";

/** Page images a preview answers at once; a longer document says how many more it has. */
export const PREVIEW_PAGES = 3;

/*
 * The renderer (puppeteer, Chromium) is loaded on the first studio call that renders, never by
 * the site's other pages: a file page's cold start does not pay for it.
 */

/** Publishing renders the sample document's thumbnail, as the design API's publish does. */
export async function publishDeps(): Promise<PublishDeps> {
  const { thumbnailRenderer } = await import("#shared/authoring/thumbnails.ts");
  return { clock: systemClock, renderThumbnail: thumbnailRenderer(), signingLabelExists: workspaceHasSigningLabel };
}

/** A preview as page images: `renderPreviewPages` of the design API's preview (same renderer and limits). */
export async function previewPages(
  source: Awaited<ReturnType<typeof previewSource>>,
): Promise<{ pageCount: number; pages: Buffer[] }> {
  const [{ renderPreviewPages }, { getRenderer }] = await Promise.all([
    import("#shared/authoring/preview.ts"),
    import("#shared/render/renderer.ts"),
  ]);
  const { pageCount, pages } = await renderPreviewPages(getRenderer(), source, { maxPages: PREVIEW_PAGES });
  return { pageCount, pages };
}

/**
 * A version's sample document (its sampleParams) as the design API's marked preview of that
 * version renders it: same renderer, limits and "PREVIEW" mark, counted in the `preview` rate
 * class, never stored as a file or billed. The version history's sample pages draw from it.
 */
export async function renderVersionSample(workspaceId: string, designId: string, version: number): Promise<Buffer> {
  await countRate(workspaceId, "preview", systemClock);
  const [{ previewSource, renderPreview }, { getRenderer }] = await Promise.all([
    import("#shared/authoring/preview.ts"),
    import("#shared/render/renderer.ts"),
  ]);
  const source = await previewSource(workspaceId, { designId, version });
  return (await renderPreview(getRenderer(), source)).pdf;
}
