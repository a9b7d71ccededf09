import { logger } from "#shared/observability/logger.ts";
import { recordRender, recordRenderFailure } from "#shared/observability/metrics.ts";
import { RenderError, type RenderedPdf, type Renderer } from "./renderer.ts";

/**
 * The renderer with its documents counted: renders, pages and render time on success, a
 * failure by its RenderError code otherwise (`UNKNOWN` for anything else). Thumbnails are
 * not documents and are left out. Handlers wrap the renderer they pass as a dependency.
 */
export function measuredRenderer(renderer: Renderer): Renderer {
  const measure = async (work: () => Promise<RenderedPdf>): Promise<RenderedPdf> => {
    const started = performance.now();
    try {
      const rendered = await work();
      const ms = Math.round(performance.now() - started);
      recordRender(rendered.pageCount, ms);
      logger.debug("document rendered", { pages: rendered.pageCount, ms });
      return rendered;
    } catch (err) {
      recordRenderFailure(err instanceof RenderError ? err.code : "UNKNOWN");
      throw err;
    }
  };
  return {
    ...renderer,
    renderPdf: (req) => measure(() => renderer.renderPdf(req)),
    printPdf: (req) => measure(() => renderer.printPdf(req)),
  };
}
