/**
 * Platen's EN 16931 invoice model: what a design's `einvoice.liquid` mapping renders, as JSON.
 * The field names are a public contract (customers' mappings depend on them); each carries its
 * business term (BT-n / BG-n) and the table in `shared/einvoice/README.md#the-model` documents them.
 *
 * The schema checks shapes and types only. Terms that EN 16931 makes mandatory are optional here,
 * so that their absence is reported by the business rule that requires them (`seller.name` → BR-06),
 * not as a bare type error.
 */
import * as z from "zod";

/** VAT category codes of UNCL 5305 that EN 16931 allows (BT-118, BT-151, BT-95, BT-102). */
export const VAT_CATEGORIES = ["S", "Z", "E", "AE", "K", "G", "O", "L", "M"] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/** A decimal: a JSON number, or a string of one (`"12.50"`), as a mapping may render either. */
const decimal = z.union([
  z.number().refine(Number.isFinite, "must be a finite number"),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, "must be a decimal number")
    .transform(Number),
]);

const text = z.string().max(1000);

const vat = z.strictObject({
  /** BT-151 / BT-95 / BT-102. */
  category: z.enum(VAT_CATEGORIES),
  /** BT-152 / BT-96 / BT-103, a percentage (`19` for 19 %). Absent for category O. */
  rate: decimal.optional(),
});

const address = z.strictObject({
  /** BT-35, BT-36, BT-162 / BT-50, BT-51, BT-163: at most three street lines. */
  lines: z.array(text).max(3).optional(),
  /** BT-37 / BT-52. */
  city: text.optional(),
  /** BT-38 / BT-53. */
  postcode: text.optional(),
  /** BT-40 / BT-55, ISO 3166-1 alpha-2. */
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as DE")
    .optional(),
});

const electronicAddress = z.strictObject({
  /** BT-34-1 / BT-49-1, an EAS code (`EM` for e-mail, `0204` for Leitweg-ID, `0088` for GLN). */
  scheme: z.string().min(1).max(10),
  /** BT-34 / BT-49. */
  value: text.min(1),
});

const party = z.strictObject({
  /** BT-27 / BT-44. */
  name: text.optional(),
  /** BT-31 / BT-48, with its country prefix (`DE123456789`). */
  vatId: text.optional(),
  /** BT-30 / BT-47. */
  legalId: text.optional(),
  /** BG-5 / BG-8. */
  address: address.optional(),
  /** BT-34 / BT-49. */
  electronicAddress: electronicAddress.optional(),
});

const seller = party.extend({
  /** BT-32: the seller's tax registration (a Japanese T-number goes here). */
  taxRegistrationId: text.optional(),
  /** BG-6. */
  contact: z
    .strictObject({
      /** BT-41. */
      name: text.optional(),
      /** BT-42. */
      phone: text.optional(),
      /** BT-43. */
      email: text.optional(),
    })
    .optional(),
});

const line = z.strictObject({
  /** BT-126. */
  id: text.optional(),
  /** BT-153. */
  name: text.optional(),
  /** BT-129. */
  quantity: decimal.optional(),
  /** BT-130, UN/ECE Rec. 20 (`C62` = one, `HUR` = hour). */
  unitCode: z.string().min(1).max(3).default("C62"),
  /** BT-146, the net price of one unit. */
  netPrice: decimal.optional(),
  /** BG-30. */
  vat: vat.optional(),
});

const allowanceOrCharge = z.strictObject({
  /** BT-92 / BT-99. */
  amount: decimal.optional(),
  /** BT-97 / BT-104. */
  reason: text.optional(),
  /** BT-95…96 / BT-102…103. */
  vat: vat.optional(),
});

/** The invoice as the mapping renders it. */
export const invoiceModelSchema = z.strictObject({
  /** BT-1. */
  number: text.optional(),
  /** BT-2, `YYYY-MM-DD`. */
  issueDate: z.iso.date().optional(),
  /** BT-3, UNCL 1001 (`380` commercial invoice, `381` credit note). */
  typeCode: z
    .string()
    .regex(/^\d{3}$/, "must be a three-digit UNCL 1001 code")
    .default("380"),
  /** BT-5, ISO 4217. */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR")
    .optional(),
  /** BT-9, `YYYY-MM-DD`. */
  dueDate: z.iso.date().optional(),
  /** BT-10. */
  buyerReference: text.optional(),
  /** BT-13. */
  orderReference: text.optional(),
  /** BT-20. */
  paymentTerms: text.optional(),
  /** BT-22. */
  notes: z.array(text).max(100).optional(),
  /** BG-4. */
  seller: seller.optional(),
  /** BG-7. */
  buyer: party.optional(),
  /** BG-16. */
  payment: z
    .strictObject({
      /** BT-81, UNCL 4461 (`58` SEPA credit transfer, `30` credit transfer). */
      meansCode: z.string().min(1).max(3).optional(),
      /** BT-84. */
      iban: text.optional(),
      /** BT-86. */
      bic: text.optional(),
      /** BT-83. */
      reference: text.optional(),
    })
    .optional(),
  /** BG-25. */
  lines: z.array(line).max(10_000).optional(),
  /** BG-20. */
  allowances: z.array(allowanceOrCharge).max(100).optional(),
  /** BG-21. */
  charges: z.array(allowanceOrCharge).max(100).optional(),
  /** BT-120, the exemption reason text for a VAT category (`{"E": "Exempt under §4 UStG"}`). */
  vatExemptionReasons: z.partialRecord(z.enum(VAT_CATEGORIES), text).optional(),
  /**
   * Totals given by the mapping, if any: checked against what Platen computes, never trusted
   * (BR-CO-10…BR-CO-16).
   */
  totals: z
    .strictObject({
      lineTotal: decimal.optional(),
      allowanceTotal: decimal.optional(),
      chargeTotal: decimal.optional(),
      taxBasis: decimal.optional(),
      taxTotal: decimal.optional(),
      grandTotal: decimal.optional(),
      duePayable: decimal.optional(),
    })
    .optional(),
});

/** The invoice as the mapping rendered it, after the shape check. */
export type InvoiceModel = z.output<typeof invoiceModelSchema>;

/** One row of the VAT breakdown (BG-23): per category and rate, the tax rounded once per row. */
export interface VatBreakdown {
  /** BT-118. */
  readonly category: VatCategory;
  /** BT-119 (absent for category O). */
  readonly rate?: number;
  /** BT-116, the sum of the lines, allowances (minus) and charges of this category and rate. */
  readonly taxableAmount: number;
  /** BT-117. */
  readonly taxAmount: number;
  /** BT-120, from `vatExemptionReasons`. */
  readonly exemptionReason?: string;
}

/** The document totals (BG-22), each rounded to the currency's minor unit. */
export interface InvoiceTotals {
  /** BT-106. */
  readonly lineTotal: number;
  /** BT-107. */
  readonly allowanceTotal: number;
  /** BT-108. */
  readonly chargeTotal: number;
  /** BT-109. */
  readonly taxBasis: number;
  /** BT-110. */
  readonly taxTotal: number;
  /** BT-112. */
  readonly grandTotal: number;
  /** BT-115. */
  readonly duePayable: number;
}

/**
 * The model with what Platen computes: each line's net amount (BT-131), the VAT breakdown and the
 * totals, all rounded to the currency's minor unit. The XML writers and the template (`einvoice`)
 * read this, so the printed totals are the XML's totals.
 */
export interface ComputedInvoice extends Omit<InvoiceModel, "lines" | "totals"> {
  readonly lines: ReadonlyArray<NonNullable<InvoiceModel["lines"]>[number] & { readonly netAmount: number }>;
  readonly vatBreakdown: readonly VatBreakdown[];
  readonly totals: InvoiceTotals;
  /** Digits after the decimal point of the currency (2 for EUR, 0 for JPY). */
  readonly minorDigits: number;
}

export { EINVOICE_FORMATS, type EinvoiceFormat } from "./formats.ts";
