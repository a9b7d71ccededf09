import { PlatenError } from "#shared/errors/platen-error.ts";
import type { DesignManifest } from "./bundle-schema.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { designDetailText } from "./design-detail-text.ts";

/** The archival standards a design may print to (design.json `pdf.standard`). */
export type PdfStandard = NonNullable<DesignManifest["pdf"]["standard"]>;

/** The e-invoice formats a design writes, `zugferd` read as `factur-x`. */
export type DesignEinvoiceFormat = "factur-x" | "xrechnung" | "peppol-bis";

type StandardFields = Pick<DesignManifest, "pdf" | "einvoice">;
type ProtectionFields = StandardFields & Pick<DesignManifest, "signature">;

/** The format of a design's e-invoice (`zugferd` is `factur-x`), or undefined for a design without one. */
export function einvoiceFormatOf(manifest: Pick<DesignManifest, "einvoice">): DesignEinvoiceFormat | undefined {
  const format = manifest.einvoice?.format;
  return format === "zugferd" ? "factur-x" : format;
}

/**
 * The standard a design's documents are printed to: `pdf.standard`, or PDF/A-3b for Factur-X, whose
 * XML travels inside the PDF (shared/designs/README.md#e-invoices-and-pdfa). A parsed manifest already
 * carries the implied standard; this also answers for one built or stored without the schema.
 */
export function pdfStandardOf(manifest: StandardFields): PdfStandard | undefined {
  if (einvoiceFormatOf(manifest) === "factur-x") return "PDF/A-3b";
  return manifest.pdf.standard;
}

/**
 * PDF/A forbids encryption, and a signed document is never encrypted (encrypting after signing changes
 * the signed bytes; signing an encrypted file is not offered): such a design takes no `content.protection`.
 */
export const protectionAllowed = (manifest: ProtectionFields): boolean =>
  pdfStandardOf(manifest) === undefined && manifest.signature === undefined;

/**
 * Refuses a generation request that asks to protect the documents of a PDF/A or signed design: 400
 * VALIDATION_FAILED naming `content.protection` (single) or `contents.<i>.protection` (multiple) of
 * every item that asks, before anything is stored or billed.
 */
export function refuseUnprotectable(
  manifest: ProtectionFields,
  request: { mode: "single" | "multiple"; contents: readonly { protection?: unknown }[] },
): void {
  const standard = pdfStandardOf(manifest);
  if (standard === undefined && manifest.signature === undefined) return;
  const text =
    standard !== undefined
      ? fillBoth(designDetailText.pdfaProtection, { standard })
      : designDetailText.signedProtection;
  const details = request.contents.flatMap((item, i) =>
    item.protection === undefined
      ? []
      : [
          {
            field: request.mode === "single" ? "content.protection" : `contents.${i}.protection`,
            code: "VALIDATION_FAILED",
            text,
          },
        ],
  );
  if (details.length) throw new PlatenError("VALIDATION_FAILED", { details });
}
