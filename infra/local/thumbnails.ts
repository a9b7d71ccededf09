import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { PublishError } from "#shared/designs/publish-design.ts";
import { permanentFileFailure } from "#shared/generation/document-failure.ts";

let renderer: { renderThumbnail(req: never): Promise<Buffer>; close(): Promise<void> } | undefined;

/**
 * Page-1 thumbnails at publish time through the shared renderer, loaded lazily so the
 * admin CLI and the stack only start Chromium when something is published.
 */
export function thumbnailRenderer(): (bundle: DesignBundle, bundleKey: string) => Promise<Buffer> {
  return async (bundle, bundleKey) => {
    const { getRenderer } = await import("#shared/render/renderer.ts");
    const r = getRenderer();
    renderer = r as never;
    try {
      return await r.renderThumbnail({ bundle, bundleKey, params: bundle.manifest.sampleParams ?? {} });
    } catch (err) {
      // A sample document that breaks a document limit refuses the publish with its catalogue code.
      const refused = permanentFileFailure(err);
      if (!refused) throw err;
      throw new PublishError(
        `the design's sample document cannot be rendered: ${refused.errorCode}: ${refused.errorMessage}`,
        { code: refused.errorCode, cause: err },
      );
    }
  };
}

thumbnailRenderer.close = async (): Promise<void> => {
  await renderer?.close();
  renderer = undefined;
};
