import type * as z from "zod";
import type { invoiceModelSchema, VatCategory } from "#shared/einvoice/model.ts";

/** The model as a mapping writes it (before the schema's defaults and conversions). */
export type ModelInput = z.input<typeof invoiceModelSchema>;

/**
 * One invoice valid in every format (Factur-X, XRechnung, Peppol BIS): EUR, a 19 % and a 7 %
 * line, an allowance and a charge at 19 %. Hand-computed: lines 3 × 10.10 = 30.30 and
 * 2 × 7.50 = 15.00 (45.30); at 19 %: 30.30 − 5.00 + 4.90 = 30.20, VAT 5.738 → 5.74; at 7 %:
 * 15.00, VAT 1.05; without VAT 45.20, VAT 6.79, with VAT 51.99.
 */
export function baseInvoice(): ModelInput {
  return {
    number: "RE-2025-0042",
    issueDate: "2025-03-14",
    currency: "EUR",
    dueDate: "2025-04-13",
    buyerReference: "04011000-12345-03",
    orderReference: "PO-7781",
    paymentTerms: "30 days net",
    notes: ["Thank you for your order."],
    seller: {
      name: "Platen Demo GmbH",
      vatId: "DE123456789",
      legalId: "HRB 12345",
      address: { lines: ["Friedrichstraße 123"], city: "Berlin", postcode: "10117", country: "DE" },
      electronicAddress: { scheme: "EM", value: "billing@platen.example" },
      contact: { name: "Accounts", phone: "+49 30 1234567", email: "accounts@platen.example" },
    },
    buyer: {
      name: "Acheteur SAS",
      address: { lines: ["12 rue de la Paix"], city: "Paris", postcode: "75002", country: "FR" },
      electronicAddress: { scheme: "EM", value: "ap@acheteur.example" },
    },
    payment: { meansCode: "58", iban: "DE02120300000000202051", bic: "BYLADEM1001", reference: "RE-2025-0042" },
    lines: [
      { id: "1", name: "Widget", quantity: 3, unitCode: "C62", netPrice: 10.1, vat: { category: "S", rate: 19 } },
      { id: "2", name: "Handbook", quantity: 2, netPrice: "7.50", vat: { category: "S", rate: 7 } },
    ],
    allowances: [{ amount: 5, reason: "Loyalty discount", vat: { category: "S", rate: 19 } }],
    charges: [{ amount: "4.90", reason: "Freight", vat: { category: "S", rate: 19 } }],
  };
}

/** The base invoice changed by `change` (which edits a fresh copy in place). */
export function invoiceWith(change: (invoice: ModelInput) => void): ModelInput {
  const invoice = baseInvoice();
  change(invoice);
  return invoice;
}

/** What a valid invoice in a VAT category needs beyond the base: its rate, reason and identifiers. */
const CATEGORY_SETUP: Record<VatCategory, { rate?: number; reason?: string; buyerVatId?: boolean }> = {
  S: { rate: 19 },
  Z: { rate: 0 },
  E: { rate: 0, reason: "Exempt under §4 Nr. 14 UStG" },
  AE: { rate: 0, reason: "Reverse charge", buyerVatId: true },
  K: { rate: 0, reason: "Intra-community supply", buyerVatId: true },
  G: { rate: 0, reason: "Export outside the EU" },
  O: { reason: "Not subject to VAT" },
  L: { rate: 7 },
  M: { rate: 4 },
};

/** The base invoice with every line, allowance and charge in `category`, valid for it. */
export function invoiceInCategory(category: VatCategory): ModelInput {
  const { rate, reason, buyerVatId } = CATEGORY_SETUP[category];
  return invoiceWith((invoice) => {
    const vat = rate === undefined ? { category } : { category, rate };
    for (const item of [...invoice.lines!, ...invoice.allowances!, ...invoice.charges!]) item.vat = { ...vat };
    if (reason) invoice.vatExemptionReasons = { [category]: reason };
    if (buyerVatId) invoice.buyer!.vatId = "FR40303265045";
    if (category === "O") delete invoice.seller!.vatId;
  });
}
