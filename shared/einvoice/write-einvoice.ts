/**
 * The e-invoice XML of a checked, computed invoice in the format a design names. Pure: no I/O, the
 * same invoice always gives the same bytes. Formats and their limits: shared/einvoice/README.md#formats.
 */
import { writeCii } from "./cii.ts";
import type { ComputedInvoice, EinvoiceFormat } from "./model.ts";
import { CREDIT_NOTE_TYPE_CODES, writeUbl } from "./ubl.ts";

/** BT-24, the specification identifier each CII format declares. */
export const CII_GUIDELINES = {
  "factur-x": "urn:cen.eu:en16931:2017",
  xrechnung: "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0",
} as const;

/** The invoice as UTF-8 XML text: CII for `factur-x` and `xrechnung`, UBL for `peppol-bis`. */
export function writeEinvoiceXml(invoice: ComputedInvoice, format: EinvoiceFormat): string {
  switch (format) {
    case "factur-x":
    case "xrechnung":
      return writeCii(invoice, CII_GUIDELINES[format]);
    case "peppol-bis":
      return writeUbl(invoice);
  }
}

/**
 * Why the format cannot carry this invoice as given, or `undefined` when it can: for the rule checks,
 * so that the refusal comes before rendering rather than as a term silently left out.
 * A UBL 2.1 `CreditNote` has no document-level due date: Peppol puts BT-9 in the payment means,
 * so a credit note with a due date needs a payment means code (BT-81).
 */
export function unsupportedFor(format: EinvoiceFormat, invoice: ComputedInvoice): string | undefined {
  if (
    format === "peppol-bis" &&
    CREDIT_NOTE_TYPE_CODES.has(invoice.typeCode) &&
    invoice.dueDate !== undefined &&
    !invoice.payment?.meansCode
  ) {
    return "A Peppol credit note carries its payment due date (BT-9) in the payment instructions: give the payment means code (BT-81) too, or leave the due date out.";
  }
  return undefined;
}
