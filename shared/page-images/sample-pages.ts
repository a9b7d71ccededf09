import type { DesignVersion } from "#shared/designs/design-store.ts";
import { once, type PageSource, type PageStore } from "./page-image-cache.ts";

/**
 * A design version's sample document (its sampleParams, rendered as the design API's marked
 * preview of that version) as a source of page images. The PDF is rendered on first need and
 * kept with the images beside the version's bundle (`designs/<ws>/<id>/b/<sha256>.marked-sample/`):
 * a version never changes, so neither does its sample. (`.sample/`, from before the mark was stamped
 * into the PDF, may lack it, so it is never read.)
 */
export function samplePageSource(
  version: Pick<DesignVersion, "bundleKey">,
  deps: { store: PageStore; renderSample(): Promise<Buffer> },
): PageSource {
  const prefix = `${version.bundleKey.replace(/\.json$/, "")}.marked-sample`;
  const pdfKey = `${prefix}/document.pdf`;
  return {
    prefix,
    readPdf: once(async () => {
      const cached = await deps.store.get(pdfKey);
      if (cached) return cached;
      const pdf = await deps.renderSample();
      await deps.store.put(pdfKey, pdf, "application/pdf");
      return pdf;
    }),
  };
}
