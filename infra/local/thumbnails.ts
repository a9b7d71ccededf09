import type { DesignBundle } from "#shared/designs/bundle-schema.ts";

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
    return r.renderThumbnail({ bundle, bundleKey, params: bundle.manifest.sampleParams ?? {} });
  };
}

thumbnailRenderer.close = async (): Promise<void> => {
  await renderer?.close();
  renderer = undefined;
};
