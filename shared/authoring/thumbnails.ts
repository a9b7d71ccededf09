import { permanentFileFailure } from "#shared/generation/requests/index.ts";
import { RenderError } from "#shared/render/render-error.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { BundleInvalid } from "./bundle-problems.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";

let renderer: { renderThumbnail(req: never): Promise<Buffer>; close(): Promise<void> } | undefined;

/**
 * Page-1 thumbnails at publish time through the shared renderer, loaded lazily so the admin
 * CLI and the stack only start Chromium when something is published. The sample document is
 * rendered here, so a design whose sample fails (a template error at render, a document
 * limit) is refused as an invalid bundle before anything is stored.
 */
export function thumbnailRenderer(): (bundle: DesignBundle, bundleKey: string) => Promise<Buffer> {
  return async (bundle, bundleKey) => {
    const { getRenderer } = await import("#shared/render/renderer.ts");
    const r = getRenderer();
    renderer = r as never;
    try {
      return await r.renderThumbnail({ bundle, bundleKey, params: bundle.manifest.sampleParams ?? {} });
    } catch (err) {
      throw sampleProblem(err) ?? err;
    }
  };
}

thumbnailRenderer.close = async (): Promise<void> => {
  await renderer?.close();
  renderer = undefined;
};

/** A sample document's own failure as a bundle problem; undefined for a renderer fault (retry). */
export function sampleProblem(err: unknown): BundleInvalid | undefined {
  if (err instanceof RenderError && err.code === "TEMPLATE_FAILED") {
    return new BundleInvalid([
      {
        file: "template.liquid",
        code: "TEMPLATE_FAILED",
        text: fillBoth(authoringText.sampleRenderFailed, { reason: err.message }),
      },
    ]);
  }
  const refused = permanentFileFailure(err);
  if (!refused) return undefined;
  return new BundleInvalid([
    {
      file: "design.json",
      field: "sampleParams",
      code: refused.errorCode,
      text: fillBoth(authoringText.sampleRefused, { reason: refused.errorMessage }),
    },
  ]);
}
