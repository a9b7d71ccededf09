/**
 * OASIS UBL 2.1 for Peppol BIS Billing 3.0: an `Invoice`, or a `CreditNote` for the credit-note
 * type codes (381 and its kin), each in its own schema order. What the model leaves out is not
 * written. Field mapping and limits: shared/einvoice/README.md#formats.
 */
import type { ComputedInvoice, VatCategory } from "./model.ts";
import {
  el,
  formatAmount,
  formatDecimal,
  leaf,
  required,
  requiredEl,
  writeXmlDocument,
  type XmlContent,
  type XmlElement,
} from "./xml-writer.ts";

const CUSTOMIZATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const PROFILE_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";
const CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/**
 * UNCL 1001 codes Peppol BIS sends as a UBL `CreditNote` rather than an `Invoice` (its two-digit
 * credit-note codes cannot reach here: the model takes three digits).
 */
export const CREDIT_NOTE_TYPE_CODES: ReadonlySet<string> = new Set([
  "261",
  "262",
  "296",
  "308",
  "381",
  "396",
  "420",
  "458",
  "532",
]);

type Line = ComputedInvoice["lines"][number];
type Seller = NonNullable<ComputedInvoice["seller"]>;
type Vat = { readonly category: VatCategory; readonly rate?: number };
type AllowanceOrCharge = NonNullable<ComputedInvoice["allowances"]>[number];

/** The names that differ between the two documents. */
interface DocumentKind {
  readonly root: "Invoice" | "CreditNote";
  readonly typeCode: string;
  readonly line: string;
  readonly quantity: string;
}

const INVOICE: DocumentKind = {
  root: "Invoice",
  typeCode: "cbc:InvoiceTypeCode",
  line: "cac:InvoiceLine",
  quantity: "cbc:InvoicedQuantity",
};
const CREDIT_NOTE: DocumentKind = {
  root: "CreditNote",
  typeCode: "cbc:CreditNoteTypeCode",
  line: "cac:CreditNoteLine",
  quantity: "cbc:CreditedQuantity",
};

/** Writes amounts in the invoice's currency: `currencyID` on every one, as UBL requires. */
const amountIn =
  (invoice: ComputedInvoice) =>
  (name: string, value: number): XmlElement | undefined =>
    leaf(name, formatAmount(value, invoice.minorDigits), { currencyID: invoice.currency });

const vatScheme = (id: string) => el("cac:TaxScheme", [leaf("cbc:ID", id)]);

/** `cac:TaxCategory` / `cac:ClassifiedTaxCategory`: the category, its rate and the VAT scheme. */
function taxCategory(name: string, vat: Vat | undefined, term: string, exemptionReason?: string): XmlElement {
  const { category, rate } = required(vat, term);
  return requiredEl(name, [
    leaf("cbc:ID", category),
    leaf("cbc:Percent", rate === undefined ? undefined : formatDecimal(rate)),
    leaf("cbc:TaxExemptionReason", exemptionReason),
    vatScheme("VAT"),
  ]);
}

function postalAddress(party: Seller, countryTerm: string): XmlContent {
  const a = party.address;
  if (!a) return undefined;
  const [street, additional, third] = a.lines ?? [];
  return el("cac:PostalAddress", [
    leaf("cbc:StreetName", street),
    leaf("cbc:AdditionalStreetName", additional),
    leaf("cbc:CityName", a.city),
    leaf("cbc:PostalZone", a.postcode),
    el("cac:AddressLine", [leaf("cbc:Line", third)]),
    el("cac:Country", [leaf("cbc:IdentificationCode", required(a.country, countryTerm))]),
  ]);
}

/** The seller's VAT id (BT-31) under scheme VAT, its tax registration (BT-32) under FC. */
const partyTaxScheme = (companyId: string | undefined, scheme: string) =>
  !companyId ? undefined : el("cac:PartyTaxScheme", [leaf("cbc:CompanyID", companyId), vatScheme(scheme)]);

function party(p: Seller, role: "seller" | "buyer"): XmlElement {
  const c = role === "seller" ? p.contact : undefined;
  return requiredEl("cac:Party", [
    p.electronicAddress && leaf("cbc:EndpointID", p.electronicAddress.value, { schemeID: p.electronicAddress.scheme }),
    postalAddress(p, role === "seller" ? "BT-40" : "BT-55"),
    partyTaxScheme(p.vatId, "VAT"),
    partyTaxScheme(p.taxRegistrationId, "FC"),
    el("cac:PartyLegalEntity", [leaf("cbc:RegistrationName", p.name), leaf("cbc:CompanyID", p.legalId)]),
    c &&
      el("cac:Contact", [
        leaf("cbc:Name", c.name),
        leaf("cbc:Telephone", c.phone),
        leaf("cbc:ElectronicMail", c.email),
      ]),
  ]);
}

/** BG-16 with BT-81 (required of the group); a credit note's due date (BT-9) lives here too. */
function paymentMeans(invoice: ComputedInvoice, kind: DocumentKind): XmlContent {
  const payment = invoice.payment;
  if (!payment?.meansCode) return undefined;
  return el("cac:PaymentMeans", [
    leaf("cbc:PaymentMeansCode", payment.meansCode),
    kind === CREDIT_NOTE && leaf("cbc:PaymentDueDate", invoice.dueDate),
    leaf("cbc:PaymentID", payment.reference),
    el("cac:PayeeFinancialAccount", [
      leaf("cbc:ID", payment.iban),
      el("cac:FinancialInstitutionBranch", [leaf("cbc:ID", payment.bic)]),
    ]),
  ]);
}

function allowanceCharge(item: AllowanceOrCharge, isCharge: boolean, invoice: ComputedInvoice): XmlElement {
  return requiredEl("cac:AllowanceCharge", [
    leaf("cbc:ChargeIndicator", String(isCharge)),
    leaf("cbc:AllowanceChargeReason", item.reason),
    amountIn(invoice)("cbc:Amount", required(item.amount, isCharge ? "BT-99" : "BT-92")),
    taxCategory("cac:TaxCategory", item.vat, isCharge ? "BT-102" : "BT-95"),
  ]);
}

function taxTotal(invoice: ComputedInvoice): XmlElement {
  const amount = amountIn(invoice);
  required(invoice.vatBreakdown[0], "BG-23");
  return requiredEl("cac:TaxTotal", [
    amount("cbc:TaxAmount", invoice.totals.taxTotal),
    invoice.vatBreakdown.map((row) =>
      requiredEl("cac:TaxSubtotal", [
        amount("cbc:TaxableAmount", row.taxableAmount),
        amount("cbc:TaxAmount", row.taxAmount),
        taxCategory("cac:TaxCategory", row, "BT-118", row.exemptionReason),
      ]),
    ),
  ]);
}

function monetaryTotal(invoice: ComputedInvoice): XmlElement {
  const { totals } = invoice;
  const amount = amountIn(invoice);
  return requiredEl("cac:LegalMonetaryTotal", [
    amount("cbc:LineExtensionAmount", totals.lineTotal),
    amount("cbc:TaxExclusiveAmount", totals.taxBasis),
    amount("cbc:TaxInclusiveAmount", totals.grandTotal),
    (invoice.allowances?.length ?? 0) > 0 && amount("cbc:AllowanceTotalAmount", totals.allowanceTotal),
    (invoice.charges?.length ?? 0) > 0 && amount("cbc:ChargeTotalAmount", totals.chargeTotal),
    amount("cbc:PayableAmount", totals.duePayable),
  ]);
}

function invoiceLine(line: Line, index: number, invoice: ComputedInvoice, kind: DocumentKind): XmlElement {
  const position = line.id ?? String(index + 1);
  const amount = amountIn(invoice);
  return requiredEl(kind.line, [
    leaf("cbc:ID", position),
    line.quantity !== undefined && leaf(kind.quantity, formatDecimal(line.quantity), { unitCode: line.unitCode }),
    amount("cbc:LineExtensionAmount", line.netAmount),
    el("cac:Item", [
      leaf("cbc:Name", required(line.name, `BT-153 of line ${position}`)),
      taxCategory("cac:ClassifiedTaxCategory", line.vat, `BT-151 of line ${position}`),
    ]),
    el("cac:Price", [
      leaf("cbc:PriceAmount", formatDecimal(required(line.netPrice, `BT-146 of line ${position}`)), {
        currencyID: invoice.currency,
      }),
    ]),
  ]);
}

/**
 * Peppol BIS allows one note (PEPPOL-EN16931-R002): several are written as one, a line apart, so
 * none is lost.
 */
const joinedNote = (notes: readonly string[] | undefined) =>
  leaf("cbc:Note", notes?.filter((note) => note !== "").join("\n\n"));

/** The invoice as a Peppol BIS Billing 3.0 UBL document (`Invoice` or `CreditNote`). */
export function writeUbl(invoice: ComputedInvoice): string {
  const kind = CREDIT_NOTE_TYPE_CODES.has(invoice.typeCode) ? CREDIT_NOTE : INVOICE;
  required(invoice.lines[0], "BG-25");
  const root = requiredEl(
    kind.root,
    [
      leaf("cbc:CustomizationID", CUSTOMIZATION_ID),
      leaf("cbc:ProfileID", PROFILE_ID),
      leaf("cbc:ID", required(invoice.number, "BT-1")),
      leaf("cbc:IssueDate", required(invoice.issueDate, "BT-2")),
      kind === INVOICE && leaf("cbc:DueDate", invoice.dueDate),
      leaf(kind.typeCode, invoice.typeCode),
      joinedNote(invoice.notes),
      leaf("cbc:DocumentCurrencyCode", required(invoice.currency, "BT-5")),
      leaf("cbc:BuyerReference", invoice.buyerReference),
      el("cac:OrderReference", [leaf("cbc:ID", invoice.orderReference)]),
      requiredEl("cac:AccountingSupplierParty", [party(invoice.seller ?? {}, "seller")]),
      requiredEl("cac:AccountingCustomerParty", [party(invoice.buyer ?? {}, "buyer")]),
      paymentMeans(invoice, kind),
      el("cac:PaymentTerms", [leaf("cbc:Note", invoice.paymentTerms)]),
      (invoice.allowances ?? []).map((item) => allowanceCharge(item, false, invoice)),
      (invoice.charges ?? []).map((item) => allowanceCharge(item, true, invoice)),
      taxTotal(invoice),
      monetaryTotal(invoice),
      invoice.lines.map((line, index) => invoiceLine(line, index, invoice, kind)),
    ],
    { xmlns: `urn:oasis:names:specification:ubl:schema:xsd:${kind.root}-2`, "xmlns:cac": CAC, "xmlns:cbc": CBC },
  );
  return writeXmlDocument(root);
}
