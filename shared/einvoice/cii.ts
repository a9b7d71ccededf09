/**
 * UN/CEFACT Cross Industry Invoice (D16B) for Factur-X / ZUGFeRD (EN 16931 profile) and XRechnung.
 * Every sequence is written in the schema's order; what the model leaves out is not written.
 * Field mapping and limits: shared/einvoice/README.md#formats.
 */
import type { ComputedInvoice, VatCategory } from "./model.ts";
import {
  el,
  formatAmount,
  formatDate102,
  formatDecimal,
  leaf,
  required,
  requiredEl,
  writeXmlDocument,
  type XmlContent,
  type XmlElement,
} from "./xml-writer.ts";

const NAMESPACES = {
  "xmlns:rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
  "xmlns:qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
  "xmlns:ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  "xmlns:udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
};

type Line = ComputedInvoice["lines"][number];
type Party = NonNullable<ComputedInvoice["buyer"]>;
type Seller = NonNullable<ComputedInvoice["seller"]>;
type Vat = { readonly category: VatCategory; readonly rate?: number };
type AllowanceOrCharge = NonNullable<ComputedInvoice["allowances"]>[number];

/** A CII date: `udt:DateTimeString` in format 102. */
const date102 = (name: string, isoDate: string | undefined) =>
  isoDate === undefined ? undefined : el(name, [leaf("udt:DateTimeString", formatDate102(isoDate), { format: "102" })]);

/** A `ram:TradeTaxType` with only type, category and rate: a line's or an allowance's VAT. */
function categoryTax(name: string, vat: Vat | undefined, term: string): XmlElement {
  const { category, rate } = required(vat, term);
  return requiredEl(name, [
    leaf("ram:TypeCode", "VAT"),
    leaf("ram:CategoryCode", category),
    leaf("ram:RateApplicablePercent", rate === undefined ? undefined : formatDecimal(rate)),
  ]);
}

function lineItem(line: Line, index: number, invoice: ComputedInvoice): XmlElement {
  const position = line.id ?? String(index + 1);
  return requiredEl("ram:IncludedSupplyChainTradeLineItem", [
    el("ram:AssociatedDocumentLineDocument", [leaf("ram:LineID", position)]),
    el("ram:SpecifiedTradeProduct", [leaf("ram:Name", required(line.name, `BT-153 of line ${position}`))]),
    el("ram:SpecifiedLineTradeAgreement", [
      el("ram:NetPriceProductTradePrice", [
        leaf("ram:ChargeAmount", formatDecimal(required(line.netPrice, `BT-146 of line ${position}`))),
      ]),
    ]),
    line.quantity !== undefined &&
      el("ram:SpecifiedLineTradeDelivery", [
        leaf("ram:BilledQuantity", formatDecimal(line.quantity), { unitCode: line.unitCode }),
      ]),
    el("ram:SpecifiedLineTradeSettlement", [
      categoryTax("ram:ApplicableTradeTax", line.vat, `BT-151 of line ${position}`),
      el("ram:SpecifiedTradeSettlementLineMonetarySummation", [
        leaf("ram:LineTotalAmount", formatAmount(line.netAmount, invoice.minorDigits)),
      ]),
    ]),
  ]);
}

function address(party: Party, countryTerm: string): XmlContent {
  const a = party.address;
  if (!a) return undefined;
  const [one, two, three] = a.lines ?? [];
  return el("ram:PostalTradeAddress", [
    leaf("ram:PostcodeCode", a.postcode),
    leaf("ram:LineOne", one),
    leaf("ram:LineTwo", two),
    leaf("ram:LineThree", three),
    leaf("ram:CityName", a.city),
    leaf("ram:CountryID", required(a.country, countryTerm)),
  ]);
}

function contact(seller: Seller): XmlContent {
  const c = seller.contact;
  if (!c) return undefined;
  return el("ram:DefinedTradeContact", [
    leaf("ram:PersonName", c.name),
    el("ram:TelephoneUniversalCommunication", [leaf("ram:CompleteNumber", c.phone)]),
    el("ram:EmailURIUniversalCommunication", [leaf("ram:URIID", c.email)]),
  ]);
}

/** Seller (BG-4) or buyer (BG-7); the seller adds its contact and its tax registration (BT-32, FC). */
function tradeParty(name: string, party: Party | Seller | undefined, role: "seller" | "buyer"): XmlElement {
  const p: Seller = party ?? {};
  return requiredEl(name, [
    leaf("ram:Name", p.name),
    el("ram:SpecifiedLegalOrganization", [leaf("ram:ID", p.legalId)]),
    role === "seller" && contact(p),
    address(p, role === "seller" ? "BT-40" : "BT-55"),
    p.electronicAddress &&
      el("ram:URIUniversalCommunication", [
        leaf("ram:URIID", p.electronicAddress.value, { schemeID: p.electronicAddress.scheme }),
      ]),
    el("ram:SpecifiedTaxRegistration", [leaf("ram:ID", p.vatId, { schemeID: "VA" })]),
    el("ram:SpecifiedTaxRegistration", [leaf("ram:ID", p.taxRegistrationId, { schemeID: "FC" })]),
  ]);
}

function agreement(invoice: ComputedInvoice): XmlElement {
  return requiredEl("ram:ApplicableHeaderTradeAgreement", [
    leaf("ram:BuyerReference", invoice.buyerReference),
    tradeParty("ram:SellerTradeParty", invoice.seller, "seller"),
    tradeParty("ram:BuyerTradeParty", invoice.buyer, "buyer"),
    el("ram:BuyerOrderReferencedDocument", [leaf("ram:IssuerAssignedID", invoice.orderReference)]),
  ]);
}

/** BG-16; written only with its means code (BT-81), which the schema requires of the group. */
function paymentMeans(invoice: ComputedInvoice): XmlContent {
  const payment = invoice.payment;
  if (!payment?.meansCode) return undefined;
  return el("ram:SpecifiedTradeSettlementPaymentMeans", [
    leaf("ram:TypeCode", payment.meansCode),
    el("ram:PayeePartyCreditorFinancialAccount", [leaf("ram:IBANID", payment.iban)]),
    el("ram:PayeeSpecifiedCreditorFinancialInstitution", [leaf("ram:BICID", payment.bic)]),
  ]);
}

function breakdown(invoice: ComputedInvoice): XmlElement[] {
  const amount = (value: number) => formatAmount(value, invoice.minorDigits);
  required(invoice.vatBreakdown[0], "BG-23");
  return invoice.vatBreakdown.map((row) =>
    requiredEl("ram:ApplicableTradeTax", [
      leaf("ram:CalculatedAmount", amount(row.taxAmount)),
      leaf("ram:TypeCode", "VAT"),
      leaf("ram:ExemptionReason", row.exemptionReason),
      leaf("ram:BasisAmount", amount(row.taxableAmount)),
      leaf("ram:CategoryCode", row.category),
      leaf("ram:RateApplicablePercent", row.rate === undefined ? undefined : formatDecimal(row.rate)),
    ]),
  );
}

/** BG-20 / BG-21: the same element, told apart by `ChargeIndicator`. */
function allowanceCharge(item: AllowanceOrCharge, isCharge: boolean, invoice: ComputedInvoice): XmlElement {
  const term = isCharge ? "BT-99" : "BT-92";
  return requiredEl("ram:SpecifiedTradeAllowanceCharge", [
    el("ram:ChargeIndicator", [leaf("udt:Indicator", String(isCharge))]),
    leaf("ram:ActualAmount", formatAmount(required(item.amount, term), invoice.minorDigits)),
    leaf("ram:Reason", item.reason),
    categoryTax("ram:CategoryTradeTax", item.vat, isCharge ? "BT-102" : "BT-95"),
  ]);
}

function summation(invoice: ComputedInvoice): XmlElement {
  const { totals } = invoice;
  const amount = (value: number) => formatAmount(value, invoice.minorDigits);
  return requiredEl("ram:SpecifiedTradeSettlementHeaderMonetarySummation", [
    leaf("ram:LineTotalAmount", amount(totals.lineTotal)),
    (invoice.charges?.length ?? 0) > 0 && leaf("ram:ChargeTotalAmount", amount(totals.chargeTotal)),
    (invoice.allowances?.length ?? 0) > 0 && leaf("ram:AllowanceTotalAmount", amount(totals.allowanceTotal)),
    leaf("ram:TaxBasisTotalAmount", amount(totals.taxBasis)),
    leaf("ram:TaxTotalAmount", amount(totals.taxTotal), { currencyID: invoice.currency }),
    leaf("ram:GrandTotalAmount", amount(totals.grandTotal)),
    leaf("ram:DuePayableAmount", amount(totals.duePayable)),
  ]);
}

function settlement(invoice: ComputedInvoice): XmlElement {
  return requiredEl("ram:ApplicableHeaderTradeSettlement", [
    leaf("ram:PaymentReference", invoice.payment?.reference),
    leaf("ram:InvoiceCurrencyCode", required(invoice.currency, "BT-5")),
    paymentMeans(invoice),
    breakdown(invoice),
    (invoice.allowances ?? []).map((item) => allowanceCharge(item, false, invoice)),
    (invoice.charges ?? []).map((item) => allowanceCharge(item, true, invoice)),
    el("ram:SpecifiedTradePaymentTerms", [
      leaf("ram:Description", invoice.paymentTerms),
      date102("ram:DueDateDateTime", invoice.dueDate),
    ]),
    summation(invoice),
  ]);
}

/**
 * The invoice as a CII document under the given guideline (BT-24): `urn:cen.eu:en16931:2017` for
 * Factur-X, the XRechnung 3.0 id for XRechnung.
 */
export function writeCii(invoice: ComputedInvoice, guideline: string): string {
  required(invoice.lines[0], "BG-25");
  const root = requiredEl(
    "rsm:CrossIndustryInvoice",
    [
      el("rsm:ExchangedDocumentContext", [
        el("ram:GuidelineSpecifiedDocumentContextParameter", [leaf("ram:ID", guideline)]),
      ]),
      el("rsm:ExchangedDocument", [
        leaf("ram:ID", required(invoice.number, "BT-1")),
        leaf("ram:TypeCode", invoice.typeCode),
        date102("ram:IssueDateTime", required(invoice.issueDate, "BT-2")),
        (invoice.notes ?? []).map((note) => el("ram:IncludedNote", [leaf("ram:Content", note)])),
      ]),
      el("rsm:SupplyChainTradeTransaction", [
        invoice.lines.map((line, index) => lineItem(line, index, invoice)),
        agreement(invoice),
        requiredEl("ram:ApplicableHeaderTradeDelivery", []),
        settlement(invoice),
      ]),
    ],
    NAMESPACES,
  );
  return writeXmlDocument(root);
}
