import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import type { EinvoiceViolation } from "#shared/einvoice/check.ts";
import { EINVOICE_FORMATS, type EinvoiceFormat } from "#shared/einvoice/formats.ts";
import type { ComputedInvoice } from "#shared/einvoice/model.ts";
import type { PdfArchiveOptions } from "./pdf-a-options.ts";
import { RenderError } from "./render-error.ts";
import { type RenderHtmlOptions, renderEinvoiceMapping, renderHtml } from "./template.ts";

export type { EinvoiceViolation };

/** One document's e-invoice: the model its mapping made, computed, and the XML written from it. */
export interface DocumentEinvoice {
  readonly format: EinvoiceFormat;
  /** What the template sees as `einvoice`, so the printed totals are the XML's totals. */
  readonly invoice: ComputedInvoice;
  /** UTF-8 bytes, the same in the PDF (Factur-X) and in the download. */
  readonly xml: Buffer;
  /** What post-processing writes for it: Factur-X's PDF/A-3b and attachment; nothing for the XML-only formats. */
  readonly archive: PdfArchiveOptions;
}

/** One document ready for Chromium: its HTML and, for a design with `einvoice`, its e-invoice. */
export interface PreparedDocument {
  readonly html: string;
  readonly einvoice?: DocumentEinvoice;
}

/**
 * A document's way in (the template step). For a design with `einvoice`, the mapping renders the params as
 * sent (`mappingParams`: every key, not only the schema's), and the invoice is checked and written first:
 * the template sees the computed `einvoice`, and a refusal costs no browser and bills nothing. Other
 * designs take exactly the template step they always did, and load none of the e-invoice code.
 * @throws RenderError as renderHtml; TEMPLATE_FAILED naming einvoice.liquid; EINVOICE_INVALID with the violations
 */
export async function prepareDocument(
  bundle: DesignBundle,
  params: Record<string, unknown>,
  options: RenderHtmlOptions & { mappingParams?: Record<string, unknown> },
): Promise<PreparedDocument> {
  const { mappingParams, ...htmlOptions } = options;
  const design = bundle.manifest.einvoice;
  if (!design) return { html: await renderHtml(bundle, params, htmlOptions) };
  if (bundle.einvoiceMapping === undefined) {
    // Publishing refuses it, so only a bundle stored by hand gets here: it fails the same way every time.
    throw new RenderError("TEMPLATE_FAILED", "einvoice.liquid: the design names an e-invoice but has no mapping");
  }
  const output = renderEinvoiceMapping(bundle.einvoiceMapping, mappingParams ?? params, {
    ...(options.bundleKey !== undefined && { bundleKey: options.bundleKey }),
    ...(options.renderLimitMs !== undefined && { renderLimitMs: options.renderLimitMs }),
    ...(options.maxHtmlChars !== undefined && { maxChars: options.maxHtmlChars }),
  });
  const { einvoiceOf } = await import("./einvoice-write.ts");
  const einvoice = einvoiceOf(output, formatOf(design.format));
  return { html: await renderHtml(bundle, params, { ...htmlOptions, einvoice: einvoice.invoice }), einvoice };
}

/** `zugferd` is Factur-X's German name: the same file. */
const formatOf = (name: EinvoiceFormat | "zugferd"): EinvoiceFormat =>
  name === "zugferd" ? "factur-x" : (EINVOICE_FORMATS.find((f) => f === name) ?? "factur-x");

/** The archival pass a document asks for: the design's `pdf.standard`, and Factur-X's PDF/A-3b with its XML. */
export function documentArchive(bundle: DesignBundle, einvoice: DocumentEinvoice | undefined): PdfArchiveOptions {
  const standard = bundle.manifest.pdf.standard;
  return { ...(standard && { standard }), ...einvoice?.archive };
}
