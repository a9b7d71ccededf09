/**
 * The formats a design's `einvoice.format` may name (`zugferd` is read as `factur-x`). Apart from the invoice
 * model (model.ts): every document's templating reads it, and only e-invoice designs need the model's schemas.
 */
export const EINVOICE_FORMATS = ["factur-x", "xrechnung", "peppol-bis"] as const;
export type EinvoiceFormat = (typeof EINVOICE_FORMATS)[number];
