import type { ComputedInvoice } from "#shared/einvoice/model.ts";

/**
 * Computed invoices built by hand (net amounts, breakdown and totals worked out on paper), so the
 * XML writers' tests do not depend on the computation they would otherwise be checking.
 */

/** Text that must survive escaping: markup characters, both quotes, an entity lookalike, Japanese. */
export const SPECIAL_TEXT = `Tom & Jerry <GmbH> "quoted" 'single' &amp; 請求書テスト`;

/**
 * EUR, 19 % and 7 %, one allowance (19 %) and one charge (7 %).
 * S 19: 950.00 + 59.97 + 0.50 + 30.00 − 40.47 = 1000.00 → 190.00; S 7: 49.00 + 5.00 = 54.00 → 3.78.
 */
export const eurInvoice: ComputedInvoice = {
  number: "RE-2025-0042",
  issueDate: "2025-03-14",
  typeCode: "380",
  currency: "EUR",
  dueDate: "2025-04-13",
  buyerReference: "04011000-12345-34",
  orderReference: "PO-7781",
  paymentTerms: "Zahlbar innerhalb von 30 Tagen ohne Abzug",
  notes: [SPECIAL_TEXT, "Vielen Dank für Ihren Auftrag."],
  seller: {
    name: "Platen Druck & Satz GmbH",
    vatId: "DE123456789",
    legalId: "HRB 12345",
    address: { lines: ["Hauptstraße 1", "Hinterhaus"], city: "Berlin", postcode: "10115", country: "DE" },
    electronicAddress: { scheme: "EM", value: "rechnung@platen.example" },
    contact: { name: "Erika Mustermann", phone: "+49 30 1234567", email: "erika@platen.example" },
  },
  buyer: {
    name: SPECIAL_TEXT,
    vatId: "DE987654321",
    address: { lines: ["Am Markt 5"], city: "München", postcode: "80331", country: "DE" },
    electronicAddress: { scheme: "0204", value: "04011000-12345-34" },
  },
  payment: { meansCode: "58", iban: "DE02120300000000202051", bic: "BYLADEM1001", reference: "RE-2025-0042" },
  lines: [
    {
      id: "1",
      name: "Beratung & Design <Phase 1>",
      quantity: 10,
      unitCode: "HUR",
      netPrice: 95,
      vat: { category: "S", rate: 19 },
      netAmount: 950,
    },
    {
      id: "2",
      name: 'Lizenz "Pro"',
      quantity: 3,
      unitCode: "C62",
      netPrice: 19.99,
      vat: { category: "S", rate: 19 },
      netAmount: 59.97,
    },
    {
      id: "3",
      name: "Fachbuch",
      quantity: 2,
      unitCode: "C62",
      netPrice: 24.5,
      vat: { category: "S", rate: 7 },
      netAmount: 49,
    },
    {
      id: "4",
      name: "Schrauben (lose)",
      quantity: 1.5,
      unitCode: "KGM",
      netPrice: 0.3334,
      vat: { category: "S", rate: 19 },
      netAmount: 0.5,
    },
    {
      id: "5",
      name: "Rüstzeit",
      // A quantity as arithmetic leaves it: the XML must say 0.3.
      quantity: 0.1 + 0.2,
      unitCode: "HUR",
      netPrice: 100,
      vat: { category: "S", rate: 19 },
      netAmount: 30,
    },
  ],
  allowances: [{ amount: 40.47, reason: "Treuerabatt 5 % & mehr", vat: { category: "S", rate: 19 } }],
  charges: [{ amount: 5, reason: "Versand", vat: { category: "S", rate: 7 } }],
  vatBreakdown: [
    { category: "S", rate: 19, taxableAmount: 1000, taxAmount: 190 },
    { category: "S", rate: 7, taxableAmount: 54, taxAmount: 3.78 },
  ],
  totals: {
    lineTotal: 1089.47,
    allowanceTotal: 40.47,
    chargeTotal: 5,
    taxBasis: 1054,
    taxTotal: 193.78,
    grandTotal: 1247.78,
    duePayable: 1247.78,
  },
  minorDigits: 2,
};

/**
 * JPY (no minor unit), 10 % and 8 % (reduced rate), the seller's T-number as its tax registration.
 * S 10: 100000 + 1650 = 101650 → 10165; S 8: 3600 → 288.
 */
export const jpyInvoice: ComputedInvoice = {
  number: "INV-2025-東京-001",
  issueDate: "2025-01-31",
  typeCode: "380",
  currency: "JPY",
  dueDate: "2025-02-28",
  paymentTerms: "月末締め翌月末払い",
  notes: ["軽減税率対象品目には※を付しています。"],
  seller: {
    name: "株式会社プラテン印刷",
    taxRegistrationId: "T1234567890123",
    address: { lines: ["千代田区丸の内1-1-1"], city: "東京都", postcode: "100-0005", country: "JP" },
    electronicAddress: { scheme: "0188", value: "1234567890123" },
    contact: { name: "山田 太郎", email: "yamada@platen.example" },
  },
  buyer: {
    name: "株式会社サンプル商事",
    address: { lines: ["大阪市北区梅田2-2-2"], city: "大阪府", postcode: "530-0001", country: "JP" },
    electronicAddress: { scheme: "0188", value: "9876543210987" },
  },
  lines: [
    {
      id: "1",
      name: "コンサルティング",
      quantity: 2,
      unitCode: "C62",
      netPrice: 50000,
      vat: { category: "S", rate: 10 },
      netAmount: 100000,
    },
    {
      id: "2",
      name: "軽減税率の食品 ※",
      quantity: 3,
      unitCode: "C62",
      netPrice: 1200,
      vat: { category: "S", rate: 8 },
      netAmount: 3600,
    },
    {
      id: "3",
      name: "文房具 & 紙",
      quantity: 5,
      unitCode: "C62",
      netPrice: 330,
      vat: { category: "S", rate: 10 },
      netAmount: 1650,
    },
  ],
  vatBreakdown: [
    { category: "S", rate: 10, taxableAmount: 101650, taxAmount: 10165 },
    { category: "S", rate: 8, taxableAmount: 3600, taxAmount: 288 },
  ],
  totals: {
    lineTotal: 105250,
    allowanceTotal: 0,
    chargeTotal: 0,
    taxBasis: 105250,
    taxTotal: 10453,
    grandTotal: 115703,
    duePayable: 115703,
  },
  minorDigits: 0,
};

const germanSeller = eurInvoice.seller;

/** VAT exempt (E, rate 0) with its exemption reason; no payment instructions beyond the terms. */
export const exemptInvoice: ComputedInvoice = {
  number: "HB-2025-7",
  issueDate: "2025-05-02",
  typeCode: "380",
  currency: "EUR",
  buyerReference: "PATIENT-42",
  paymentTerms: "Zahlbar sofort",
  seller: germanSeller,
  buyer: {
    name: "Max Mustermann",
    address: { lines: ["Lindenweg 3"], city: "Hamburg", postcode: "20095", country: "DE" },
    electronicAddress: { scheme: "EM", value: "max@example.org" },
  },
  lines: [
    {
      id: "1",
      name: "Heilbehandlung",
      quantity: 1,
      unitCode: "C62",
      netPrice: 200,
      vat: { category: "E", rate: 0 },
      netAmount: 200,
    },
  ],
  vatExemptionReasons: { E: "Steuerfrei nach § 4 Nr. 14 UStG" },
  vatBreakdown: [
    { category: "E", rate: 0, taxableAmount: 200, taxAmount: 0, exemptionReason: "Steuerfrei nach § 4 Nr. 14 UStG" },
  ],
  totals: {
    lineTotal: 200,
    allowanceTotal: 0,
    chargeTotal: 0,
    taxBasis: 200,
    taxTotal: 0,
    grandTotal: 200,
    duePayable: 200,
  },
  minorDigits: 2,
};

/** Reverse charge (AE, rate 0) to a French buyer with its VAT id; lines without ids take their position. */
export const reverseChargeInvoice: ComputedInvoice = {
  number: "RC-2025-3",
  issueDate: "2025-06-30",
  typeCode: "380",
  currency: "EUR",
  dueDate: "2025-07-30",
  buyerReference: "FR-ACHATS",
  seller: germanSeller,
  buyer: {
    name: "Atelier Dupont SARL",
    vatId: "FR12345678901",
    legalId: "123456789",
    address: { lines: ["12 rue de la Paix"], city: "Paris", postcode: "75002", country: "FR" },
    electronicAddress: { scheme: "0009", value: "12345678900012" },
  },
  payment: { meansCode: "30", iban: "DE02120300000000202051" },
  lines: [
    { name: "Montage", quantity: 8, unitCode: "HUR", netPrice: 85, vat: { category: "AE", rate: 0 }, netAmount: 680 },
    {
      name: "Kleinteile",
      quantity: 12,
      unitCode: "C62",
      netPrice: 1.25,
      vat: { category: "AE", rate: 0 },
      netAmount: 15,
    },
  ],
  vatExemptionReasons: { AE: "Reverse charge" },
  vatBreakdown: [{ category: "AE", rate: 0, taxableAmount: 695, taxAmount: 0, exemptionReason: "Reverse charge" }],
  totals: {
    lineTotal: 695,
    allowanceTotal: 0,
    chargeTotal: 0,
    taxBasis: 695,
    taxTotal: 0,
    grandTotal: 695,
    duePayable: 695,
  },
  minorDigits: 2,
};

/** A credit note (381): Peppol writes it as a UBL `CreditNote`, its due date in the payment means. */
export const creditNote: ComputedInvoice = {
  ...exemptInvoice,
  number: "GS-2025-1",
  typeCode: "381",
  dueDate: "2025-05-16",
  notes: ["Gutschrift zu HB-2025-7"],
  payment: { meansCode: "58", iban: "DE02120300000000202051", reference: "GS-2025-1" },
};

/** Every fixture by name, for tests that run each format over all of them. */
export const EINVOICE_FIXTURES: Readonly<Record<string, ComputedInvoice>> = {
  eur: eurInvoice,
  jpy: jpyInvoice,
  exempt: exemptInvoice,
  reverseCharge: reverseChargeInvoice,
  creditNote,
};

/** A long invoice: `count` lines at 19 %, each 3 × 12.34 = 37.02. */
export function manyLinesInvoice(count: number): ComputedInvoice {
  const lineNet = 37.02;
  const lineTotal = Math.round(count * lineNet * 100) / 100;
  const tax = Math.round(lineTotal * 19) / 100;
  const lines = Array.from({ length: count }, (_, i) => ({
    id: String(i + 1),
    name: `Position ${i + 1} & Zubehör`,
    quantity: 3,
    unitCode: "C62",
    netPrice: 12.34,
    vat: { category: "S" as const, rate: 19 },
    netAmount: lineNet,
  }));
  const grandTotal = Math.round((lineTotal + tax) * 100) / 100;
  return {
    ...eurInvoice,
    allowances: [],
    charges: [],
    lines,
    vatBreakdown: [{ category: "S", rate: 19, taxableAmount: lineTotal, taxAmount: tax }],
    totals: {
      lineTotal,
      allowanceTotal: 0,
      chargeTotal: 0,
      taxBasis: lineTotal,
      taxTotal: tax,
      grandTotal,
      duePayable: grandTotal,
    },
  };
}
