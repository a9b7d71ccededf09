import { describe, expect, it } from "vitest";
import type { ComputedInvoice, EinvoiceFormat } from "#shared/einvoice/model.ts";
import { writeEinvoiceXml } from "#shared/einvoice/write-einvoice.ts";
import { EINVOICE_FIXTURES, eurInvoice, jpyInvoice, SPECIAL_TEXT } from "../helpers/einvoice-fixtures.ts";
import { all, one, parseXml, textAt, type XmlNode } from "../helpers/einvoice-xml.ts";

/**
 * The written XML, parsed back by an independent parser, gives the model's terms again: the
 * document's identity and dates, every line, the VAT breakdown, the totals and the parties' ids.
 */
interface PartyIds {
  name?: string;
  vatId?: string;
  taxRegistrationId?: string;
  legalId?: string;
  electronicAddress?: { scheme?: string; value?: string };
  country?: string;
}

interface VatOf {
  category?: string;
  rate?: number;
}

interface ReadBack {
  number?: string;
  typeCode?: string;
  issueDate?: string;
  dueDate?: string;
  currency?: string;
  buyerReference?: string;
  orderReference?: string;
  paymentTerms?: string;
  notes: string[];
  seller: PartyIds;
  buyer: PartyIds;
  payment?: { meansCode?: string; iban?: string; bic?: string; reference?: string };
  lines: Array<{
    id?: string;
    name?: string;
    quantity?: number;
    unitCode?: string;
    netPrice?: number;
    netAmount?: number;
    vat: VatOf;
  }>;
  allowances: Array<{ amount?: number; reason?: string; vat: VatOf }>;
  charges: Array<{ amount?: number; reason?: string; vat: VatOf }>;
  breakdown: Array<{
    category?: string;
    rate?: number;
    taxableAmount?: number;
    taxAmount?: number;
    exemptionReason?: string;
  }>;
  totals: Record<string, number | undefined>;
}

const num = (text: string | undefined) => (text === undefined ? undefined : Number(text));
/** `YYYYMMDD` (CII format 102) as `YYYY-MM-DD`. */
const from102 = (text: string | undefined) =>
  text === undefined ? undefined : `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
/** Drops keys whose value is undefined, so a term left out compares equal to one never given. */
const defined = <T extends object>(value: T): T =>
  JSON.parse(JSON.stringify(value, (_, v) => (v === undefined ? undefined : v))) as T;

function ciiParty(party: XmlNode): PartyIds {
  const registration = (scheme: string) =>
    all(party, "ram:SpecifiedTaxRegistration/ram:ID").find((id) => id.attributes.schemeID === scheme)?.text;
  const uri = all(party, "ram:URIUniversalCommunication/ram:URIID")[0];
  return {
    name: textAt(party, "ram:Name"),
    vatId: registration("VA"),
    taxRegistrationId: registration("FC"),
    legalId: textAt(party, "ram:SpecifiedLegalOrganization/ram:ID"),
    electronicAddress: uri && { scheme: uri.attributes.schemeID, value: uri.text },
    country: textAt(party, "ram:PostalTradeAddress/ram:CountryID"),
  };
}

const ciiVat = (tax: XmlNode): VatOf => ({
  category: textAt(tax, "ram:CategoryCode"),
  rate: num(textAt(tax, "ram:RateApplicablePercent")),
});

function ciiAllowances(settlement: XmlNode, isCharge: boolean) {
  return all(settlement, "ram:SpecifiedTradeAllowanceCharge")
    .filter((item) => textAt(item, "ram:ChargeIndicator/udt:Indicator") === String(isCharge))
    .map((item) => ({
      amount: num(textAt(item, "ram:ActualAmount")),
      reason: textAt(item, "ram:Reason"),
      vat: ciiVat(one(item, "ram:CategoryTradeTax")),
    }));
}

function readCii(root: XmlNode): ReadBack {
  const doc = one(root, "rsm:ExchangedDocument");
  const trade = one(root, "rsm:SupplyChainTradeTransaction");
  const agreement = one(trade, "ram:ApplicableHeaderTradeAgreement");
  const settlement = one(trade, "ram:ApplicableHeaderTradeSettlement");
  const sum = one(settlement, "ram:SpecifiedTradeSettlementHeaderMonetarySummation");
  const means = all(settlement, "ram:SpecifiedTradeSettlementPaymentMeans")[0];
  return {
    number: textAt(doc, "ram:ID"),
    typeCode: textAt(doc, "ram:TypeCode"),
    issueDate: from102(textAt(doc, "ram:IssueDateTime/udt:DateTimeString")),
    dueDate: from102(textAt(settlement, "ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString")),
    currency: textAt(settlement, "ram:InvoiceCurrencyCode"),
    buyerReference: textAt(agreement, "ram:BuyerReference"),
    orderReference: textAt(agreement, "ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID"),
    paymentTerms: textAt(settlement, "ram:SpecifiedTradePaymentTerms/ram:Description"),
    notes: all(doc, "ram:IncludedNote/ram:Content").map((n) => n.text),
    seller: ciiParty(one(agreement, "ram:SellerTradeParty")),
    buyer: ciiParty(one(agreement, "ram:BuyerTradeParty")),
    payment: means && {
      meansCode: textAt(means, "ram:TypeCode"),
      iban: textAt(means, "ram:PayeePartyCreditorFinancialAccount/ram:IBANID"),
      bic: textAt(means, "ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID"),
      reference: textAt(settlement, "ram:PaymentReference"),
    },
    lines: all(trade, "ram:IncludedSupplyChainTradeLineItem").map((line) => {
      const quantity = all(line, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity")[0];
      return {
        id: textAt(line, "ram:AssociatedDocumentLineDocument/ram:LineID"),
        name: textAt(line, "ram:SpecifiedTradeProduct/ram:Name"),
        quantity: num(quantity?.text),
        unitCode: quantity?.attributes.unitCode,
        netPrice: num(textAt(line, "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount")),
        netAmount: num(
          textAt(
            line,
            "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount",
          ),
        ),
        vat: ciiVat(one(line, "ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax")),
      };
    }),
    allowances: ciiAllowances(settlement, false),
    charges: ciiAllowances(settlement, true),
    breakdown: all(settlement, "ram:ApplicableTradeTax").map((row) => ({
      ...ciiVat(row),
      taxableAmount: num(textAt(row, "ram:BasisAmount")),
      taxAmount: num(textAt(row, "ram:CalculatedAmount")),
      exemptionReason: textAt(row, "ram:ExemptionReason"),
    })),
    totals: {
      lineTotal: num(textAt(sum, "ram:LineTotalAmount")),
      allowanceTotal: num(textAt(sum, "ram:AllowanceTotalAmount")),
      chargeTotal: num(textAt(sum, "ram:ChargeTotalAmount")),
      taxBasis: num(textAt(sum, "ram:TaxBasisTotalAmount")),
      taxTotal: num(textAt(sum, "ram:TaxTotalAmount")),
      grandTotal: num(textAt(sum, "ram:GrandTotalAmount")),
      duePayable: num(textAt(sum, "ram:DuePayableAmount")),
    },
  };
}

function ublParty(party: XmlNode): PartyIds {
  const scheme = (id: string) =>
    all(party, "cac:PartyTaxScheme").find((s) => textAt(s, "cac:TaxScheme/cbc:ID") === id) ?? undefined;
  const endpoint = all(party, "cbc:EndpointID")[0];
  const vat = scheme("VAT");
  const fc = scheme("FC");
  return {
    name: textAt(party, "cac:PartyLegalEntity/cbc:RegistrationName"),
    vatId: vat && textAt(vat, "cbc:CompanyID"),
    taxRegistrationId: fc && textAt(fc, "cbc:CompanyID"),
    legalId: textAt(party, "cac:PartyLegalEntity/cbc:CompanyID"),
    electronicAddress: endpoint && { scheme: endpoint.attributes.schemeID, value: endpoint.text },
    country: textAt(party, "cac:PostalAddress/cac:Country/cbc:IdentificationCode"),
  };
}

const ublVat = (category: XmlNode): VatOf => ({
  category: textAt(category, "cbc:ID"),
  rate: num(textAt(category, "cbc:Percent")),
});

function ublAllowances(root: XmlNode, isCharge: boolean) {
  return all(root, "cac:AllowanceCharge")
    .filter((item) => textAt(item, "cbc:ChargeIndicator") === String(isCharge))
    .map((item) => ({
      amount: num(textAt(item, "cbc:Amount")),
      reason: textAt(item, "cbc:AllowanceChargeReason"),
      vat: ublVat(one(item, "cac:TaxCategory")),
    }));
}

function readUbl(root: XmlNode): ReadBack {
  const credit = root.name === "CreditNote";
  const means = all(root, "cac:PaymentMeans")[0];
  const total = one(root, "cac:LegalMonetaryTotal");
  return {
    number: textAt(root, "cbc:ID"),
    typeCode: textAt(root, credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode"),
    issueDate: textAt(root, "cbc:IssueDate"),
    dueDate: credit ? means && textAt(means, "cbc:PaymentDueDate") : textAt(root, "cbc:DueDate"),
    currency: textAt(root, "cbc:DocumentCurrencyCode"),
    buyerReference: textAt(root, "cbc:BuyerReference"),
    orderReference: textAt(root, "cac:OrderReference/cbc:ID"),
    paymentTerms: textAt(root, "cac:PaymentTerms/cbc:Note"),
    notes: all(root, "cbc:Note").map((n) => n.text),
    seller: ublParty(one(root, "cac:AccountingSupplierParty/cac:Party")),
    buyer: ublParty(one(root, "cac:AccountingCustomerParty/cac:Party")),
    payment: means && {
      meansCode: textAt(means, "cbc:PaymentMeansCode"),
      iban: textAt(means, "cac:PayeeFinancialAccount/cbc:ID"),
      bic: textAt(means, "cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID"),
      reference: textAt(means, "cbc:PaymentID"),
    },
    lines: all(root, credit ? "cac:CreditNoteLine" : "cac:InvoiceLine").map((line) => {
      const quantity = all(line, credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity")[0];
      return {
        id: textAt(line, "cbc:ID"),
        name: textAt(line, "cac:Item/cbc:Name"),
        quantity: num(quantity?.text),
        unitCode: quantity?.attributes.unitCode,
        netPrice: num(textAt(line, "cac:Price/cbc:PriceAmount")),
        netAmount: num(textAt(line, "cbc:LineExtensionAmount")),
        vat: ublVat(one(line, "cac:Item/cac:ClassifiedTaxCategory")),
      };
    }),
    allowances: ublAllowances(root, false),
    charges: ublAllowances(root, true),
    breakdown: all(root, "cac:TaxTotal/cac:TaxSubtotal").map((row) => ({
      ...ublVat(one(row, "cac:TaxCategory")),
      taxableAmount: num(textAt(row, "cbc:TaxableAmount")),
      taxAmount: num(textAt(row, "cbc:TaxAmount")),
      exemptionReason: textAt(row, "cac:TaxCategory/cbc:TaxExemptionReason"),
    })),
    totals: {
      lineTotal: num(textAt(total, "cbc:LineExtensionAmount")),
      allowanceTotal: num(textAt(total, "cbc:AllowanceTotalAmount")),
      chargeTotal: num(textAt(total, "cbc:ChargeTotalAmount")),
      taxBasis: num(textAt(total, "cbc:TaxExclusiveAmount")),
      taxTotal: num(textAt(root, "cac:TaxTotal/cbc:TaxAmount")),
      grandTotal: num(textAt(total, "cbc:TaxInclusiveAmount")),
      duePayable: num(textAt(total, "cbc:PayableAmount")),
    },
  };
}

/** A price or quantity as a decimal reader sees it: the binary noise of 0.1 + 0.2 is not a term. */
const decimal = (value: number | undefined) => (value === undefined ? undefined : Number(value.toPrecision(15)));

const party = (p: ComputedInvoice["seller"]): PartyIds => ({
  name: p?.name,
  vatId: p?.vatId,
  taxRegistrationId: p?.taxRegistrationId,
  legalId: p?.legalId,
  electronicAddress: p?.electronicAddress,
  country: p?.address?.country,
});

/** What the model says, in the shape read back. Peppol allows one note: the notes come back joined. */
function expected(invoice: ComputedInvoice, format: EinvoiceFormat): ReadBack {
  const notes = (invoice.notes ?? []).filter((n) => n !== "");
  const { totals } = invoice;
  const allowanceOrCharge = (item: NonNullable<ComputedInvoice["allowances"]>[number]) => ({
    amount: item.amount,
    reason: item.reason,
    vat: { category: item.vat?.category, rate: item.vat?.rate },
  });
  return {
    number: invoice.number,
    typeCode: invoice.typeCode,
    issueDate: invoice.issueDate,
    dueDate: invoice.dueDate,
    currency: invoice.currency,
    buyerReference: invoice.buyerReference,
    orderReference: invoice.orderReference,
    paymentTerms: invoice.paymentTerms,
    notes: format === "peppol-bis" && notes.length > 0 ? [notes.join("\n\n")] : notes,
    seller: party(invoice.seller),
    buyer: party(invoice.buyer),
    payment: invoice.payment,
    lines: invoice.lines.map((line, index) => ({
      id: line.id ?? String(index + 1),
      name: line.name,
      quantity: decimal(line.quantity),
      unitCode: line.unitCode,
      netPrice: decimal(line.netPrice),
      netAmount: line.netAmount,
      vat: { category: line.vat?.category, rate: line.vat?.rate },
    })),
    allowances: (invoice.allowances ?? []).map(allowanceOrCharge),
    charges: (invoice.charges ?? []).map(allowanceOrCharge),
    breakdown: invoice.vatBreakdown.map((row) => ({ ...row })),
    totals: {
      ...totals,
      allowanceTotal: invoice.allowances?.length ? totals.allowanceTotal : undefined,
      chargeTotal: invoice.charges?.length ? totals.chargeTotal : undefined,
    },
  };
}

const FORMATS: readonly EinvoiceFormat[] = ["factur-x", "xrechnung", "peppol-bis"];
const readBack = (invoice: ComputedInvoice, format: EinvoiceFormat) => {
  const root = parseXml(writeEinvoiceXml(invoice, format));
  return format === "peppol-bis" ? readUbl(root) : readCii(root);
};

describe("the written XML read back gives the model's terms", () => {
  for (const format of FORMATS) {
    for (const [name, invoice] of Object.entries(EINVOICE_FIXTURES)) {
      it(`${format}, ${name}`, () => {
        expect(defined(readBack(invoice, format))).toEqual(defined(expected(invoice, format)));
      });
    }
  }

  it("reads what the fixtures stand for, so the comparison is not empty on both sides", () => {
    const eur = readBack(eurInvoice, "factur-x");
    expect(eur.totals).toEqual({
      lineTotal: 1089.47,
      allowanceTotal: 40.47,
      chargeTotal: 5,
      taxBasis: 1054,
      taxTotal: 193.78,
      grandTotal: 1247.78,
      duePayable: 1247.78,
    });
    expect(eur.lines.map((l) => l.netAmount)).toEqual([950, 59.97, 49, 0.5, 30]);
    expect(eur.lines[4]?.quantity).toBe(0.3);
    expect(eur.breakdown.map((r) => [r.rate, r.taxableAmount, r.taxAmount])).toEqual([
      [19, 1000, 190],
      [7, 54, 3.78],
    ]);
    const jpy = readBack(jpyInvoice, "peppol-bis");
    expect(jpy.seller.taxRegistrationId).toBe("T1234567890123");
    expect(jpy.currency).toBe("JPY");
    expect(jpy.totals.grandTotal).toBe(115703);
  });

  it("keeps markup characters, quotes, an entity lookalike and Japanese text intact in every format", () => {
    for (const format of FORMATS) {
      const back = readBack(eurInvoice, format);
      expect(back.buyer.name).toBe(SPECIAL_TEXT);
      expect(back.notes[0]?.startsWith(SPECIAL_TEXT)).toBe(true);
      expect(back.lines.map((l) => l.name)).toContain('Lizenz "Pro"');
      expect(back.lines.map((l) => l.name)).toContain("Beratung & Design <Phase 1>");
      expect(readBack(jpyInvoice, format).lines.map((l) => l.name)).toEqual([
        "コンサルティング",
        "軽減税率の食品 ※",
        "文房具 & 紙",
      ]);
    }
  });
});
