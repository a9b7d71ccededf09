import { describe, expect, it } from "vitest";
import type { ComputedInvoice, EinvoiceFormat } from "#shared/einvoice/model.ts";
import { unsupportedFor, writeEinvoiceXml } from "#shared/einvoice/write-einvoice.ts";
import { formatAmount, formatDate102, formatDecimal, xmlText } from "#shared/einvoice/xml-writer.ts";
import {
  creditNote,
  EINVOICE_FIXTURES,
  eurInvoice,
  jpyInvoice,
  manyLinesInvoice,
} from "../helpers/einvoice-fixtures.ts";
import { all, parseXml, walk, type XmlNode } from "../helpers/einvoice-xml.ts";

/**
 * The official XSDs are not in the repository. Below is our own description of the part of each
 * schema the writers emit: for every complex type, its children in schema order as
 * `name min..max [Type] [@attribute | @optionalAttribute?]`. A child without a type is a text
 * element, which must not be empty. A type listed with no children (CII's header delivery) is the
 * only element that may be written empty.
 */
type Types = Readonly<Record<string, readonly string[]>>;

interface Schema {
  readonly root: string;
  readonly rootType: string;
  /** The namespace declarations the root must carry, exactly. */
  readonly namespaces: Readonly<Record<string, string>>;
  readonly types: Types;
}

/** CII D16B as Factur-X's EN 16931 profile and XRechnung use it (the subset Platen writes). */
const CII_TYPES: Types = {
  CrossIndustryInvoice: [
    "rsm:ExchangedDocumentContext 1..1 ExchangedDocumentContext",
    "rsm:ExchangedDocument 1..1 ExchangedDocument",
    "rsm:SupplyChainTradeTransaction 1..1 SupplyChainTradeTransaction",
  ],
  ExchangedDocumentContext: ["ram:GuidelineSpecifiedDocumentContextParameter 1..1 DocumentContextParameter"],
  DocumentContextParameter: ["ram:ID 0..1"],
  ExchangedDocument: [
    "ram:ID 1..1",
    "ram:TypeCode 1..1",
    "ram:IssueDateTime 1..1 DateTime",
    "ram:IncludedNote 0..n Note",
  ],
  DateTime: ["udt:DateTimeString 1..1 @format"],
  Note: ["ram:Content 1..1"],
  SupplyChainTradeTransaction: [
    "ram:IncludedSupplyChainTradeLineItem 1..n LineItem",
    "ram:ApplicableHeaderTradeAgreement 1..1 HeaderTradeAgreement",
    "ram:ApplicableHeaderTradeDelivery 1..1 HeaderTradeDelivery",
    "ram:ApplicableHeaderTradeSettlement 1..1 HeaderTradeSettlement",
  ],
  LineItem: [
    "ram:AssociatedDocumentLineDocument 1..1 DocumentLineDocument",
    "ram:SpecifiedTradeProduct 1..1 TradeProduct",
    "ram:SpecifiedLineTradeAgreement 1..1 LineTradeAgreement",
    "ram:SpecifiedLineTradeDelivery 0..1 LineTradeDelivery",
    "ram:SpecifiedLineTradeSettlement 1..1 LineTradeSettlement",
  ],
  DocumentLineDocument: ["ram:LineID 1..1"],
  TradeProduct: ["ram:Name 1..1"],
  LineTradeAgreement: ["ram:NetPriceProductTradePrice 1..1 TradePrice"],
  TradePrice: ["ram:ChargeAmount 1..1"],
  LineTradeDelivery: ["ram:BilledQuantity 1..1 @unitCode"],
  LineTradeSettlement: [
    "ram:ApplicableTradeTax 1..1 TradeTax",
    "ram:SpecifiedTradeSettlementLineMonetarySummation 1..1 LineMonetarySummation",
  ],
  TradeTax: [
    "ram:CalculatedAmount 0..1",
    "ram:TypeCode 1..1",
    "ram:ExemptionReason 0..1",
    "ram:BasisAmount 0..1",
    "ram:CategoryCode 1..1",
    "ram:RateApplicablePercent 0..1",
  ],
  LineMonetarySummation: ["ram:LineTotalAmount 1..1"],
  HeaderTradeAgreement: [
    "ram:BuyerReference 0..1",
    "ram:SellerTradeParty 1..1 TradeParty",
    "ram:BuyerTradeParty 1..1 TradeParty",
    "ram:BuyerOrderReferencedDocument 0..1 ReferencedDocument",
  ],
  TradeParty: [
    "ram:Name 0..1",
    "ram:SpecifiedLegalOrganization 0..1 LegalOrganization",
    "ram:DefinedTradeContact 0..1 TradeContact",
    "ram:PostalTradeAddress 0..1 TradeAddress",
    "ram:URIUniversalCommunication 0..1 UniversalCommunication",
    "ram:SpecifiedTaxRegistration 0..n TaxRegistration",
  ],
  LegalOrganization: ["ram:ID 0..1 @schemeID?"],
  TradeContact: [
    "ram:PersonName 0..1",
    "ram:TelephoneUniversalCommunication 0..1 UniversalCommunication",
    "ram:EmailURIUniversalCommunication 0..1 UniversalCommunication",
  ],
  UniversalCommunication: ["ram:URIID 0..1 @schemeID?", "ram:CompleteNumber 0..1"],
  TradeAddress: [
    "ram:PostcodeCode 0..1",
    "ram:LineOne 0..1",
    "ram:LineTwo 0..1",
    "ram:LineThree 0..1",
    "ram:CityName 0..1",
    "ram:CountryID 1..1",
  ],
  TaxRegistration: ["ram:ID 1..1 @schemeID"],
  ReferencedDocument: ["ram:IssuerAssignedID 0..1"],
  HeaderTradeDelivery: [],
  HeaderTradeSettlement: [
    "ram:PaymentReference 0..1",
    "ram:InvoiceCurrencyCode 1..1",
    "ram:SpecifiedTradeSettlementPaymentMeans 0..n PaymentMeans",
    "ram:ApplicableTradeTax 1..n TradeTax",
    "ram:SpecifiedTradeAllowanceCharge 0..n AllowanceCharge",
    "ram:SpecifiedTradePaymentTerms 0..1 PaymentTerms",
    "ram:SpecifiedTradeSettlementHeaderMonetarySummation 1..1 HeaderMonetarySummation",
  ],
  PaymentMeans: [
    "ram:TypeCode 1..1",
    "ram:PayeePartyCreditorFinancialAccount 0..1 CreditorAccount",
    "ram:PayeeSpecifiedCreditorFinancialInstitution 0..1 CreditorInstitution",
  ],
  CreditorAccount: ["ram:IBANID 0..1"],
  CreditorInstitution: ["ram:BICID 1..1"],
  AllowanceCharge: [
    "ram:ChargeIndicator 0..1 Indicator",
    "ram:ActualAmount 1..1",
    "ram:Reason 0..1",
    "ram:CategoryTradeTax 0..1 TradeTax",
  ],
  Indicator: ["udt:Indicator 1..1"],
  PaymentTerms: ["ram:Description 0..1", "ram:DueDateDateTime 0..1 DateTime"],
  HeaderMonetarySummation: [
    "ram:LineTotalAmount 1..1",
    "ram:ChargeTotalAmount 0..1",
    "ram:AllowanceTotalAmount 0..1",
    "ram:TaxBasisTotalAmount 1..1",
    "ram:TaxTotalAmount 0..2 @currencyID",
    "ram:GrandTotalAmount 1..1",
    "ram:DuePayableAmount 1..1",
  ],
};

const CII: Schema = {
  root: "rsm:CrossIndustryInvoice",
  rootType: "CrossIndustryInvoice",
  namespaces: {
    "xmlns:rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "xmlns:qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
    "xmlns:ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "xmlns:udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
  },
  types: CII_TYPES,
};

/** The document types of UBL 2.1 Invoice and CreditNote, then the common aggregates they use. */
const UBL_HEAD = ["cbc:CustomizationID 0..1", "cbc:ProfileID 0..1", "cbc:ID 1..1", "cbc:IssueDate 1..1"];
const UBL_TAIL = [
  "cbc:Note 0..n",
  "cbc:DocumentCurrencyCode 0..1",
  "cbc:BuyerReference 0..1",
  "cac:OrderReference 0..1 OrderReference",
  "cac:AccountingSupplierParty 1..1 SupplierParty",
  "cac:AccountingCustomerParty 1..1 CustomerParty",
  "cac:PaymentMeans 0..n PaymentMeans",
  "cac:PaymentTerms 0..n PaymentTerms",
  "cac:AllowanceCharge 0..n AllowanceCharge",
  "cac:TaxTotal 0..n TaxTotal",
  "cac:LegalMonetaryTotal 1..1 MonetaryTotal",
];
const UBL_TYPES: Types = {
  Invoice: [
    ...UBL_HEAD,
    "cbc:DueDate 0..1",
    "cbc:InvoiceTypeCode 0..1",
    ...UBL_TAIL,
    "cac:InvoiceLine 1..n InvoiceLine",
  ],
  CreditNote: [...UBL_HEAD, "cbc:CreditNoteTypeCode 0..1", ...UBL_TAIL, "cac:CreditNoteLine 1..n CreditNoteLine"],
  OrderReference: ["cbc:ID 1..1"],
  SupplierParty: ["cac:Party 0..1 Party"],
  CustomerParty: ["cac:Party 0..1 Party"],
  Party: [
    "cbc:EndpointID 0..1 @schemeID",
    "cac:PostalAddress 0..1 Address",
    "cac:PartyTaxScheme 0..n PartyTaxScheme",
    "cac:PartyLegalEntity 0..n PartyLegalEntity",
    "cac:Contact 0..1 Contact",
  ],
  Address: [
    "cbc:StreetName 0..1",
    "cbc:AdditionalStreetName 0..1",
    "cbc:CityName 0..1",
    "cbc:PostalZone 0..1",
    "cac:AddressLine 0..n AddressLine",
    "cac:Country 0..1 Country",
  ],
  AddressLine: ["cbc:Line 1..1"],
  Country: ["cbc:IdentificationCode 0..1"],
  PartyTaxScheme: ["cbc:CompanyID 0..1", "cac:TaxScheme 1..1 TaxScheme"],
  TaxScheme: ["cbc:ID 0..1"],
  PartyLegalEntity: ["cbc:RegistrationName 0..1", "cbc:CompanyID 0..1 @schemeID?"],
  Contact: ["cbc:Name 0..1", "cbc:Telephone 0..1", "cbc:ElectronicMail 0..1"],
  PaymentMeans: [
    "cbc:PaymentMeansCode 1..1",
    "cbc:PaymentDueDate 0..1",
    "cbc:PaymentID 0..n",
    "cac:PayeeFinancialAccount 0..1 FinancialAccount",
  ],
  FinancialAccount: ["cbc:ID 0..1", "cac:FinancialInstitutionBranch 0..1 Branch"],
  Branch: ["cbc:ID 0..1"],
  PaymentTerms: ["cbc:Note 0..n"],
  AllowanceCharge: [
    "cbc:ChargeIndicator 1..1",
    "cbc:AllowanceChargeReason 0..n",
    "cbc:Amount 1..1 @currencyID",
    "cac:TaxCategory 0..n TaxCategory",
  ],
  TaxCategory: ["cbc:ID 0..1", "cbc:Percent 0..1", "cbc:TaxExemptionReason 0..n", "cac:TaxScheme 1..1 TaxScheme"],
  TaxTotal: ["cbc:TaxAmount 1..1 @currencyID", "cac:TaxSubtotal 0..n TaxSubtotal"],
  TaxSubtotal: [
    "cbc:TaxableAmount 0..1 @currencyID",
    "cbc:TaxAmount 1..1 @currencyID",
    "cac:TaxCategory 1..1 TaxCategory",
  ],
  MonetaryTotal: [
    "cbc:LineExtensionAmount 0..1 @currencyID",
    "cbc:TaxExclusiveAmount 0..1 @currencyID",
    "cbc:TaxInclusiveAmount 0..1 @currencyID",
    "cbc:AllowanceTotalAmount 0..1 @currencyID",
    "cbc:ChargeTotalAmount 0..1 @currencyID",
    "cbc:PayableAmount 1..1 @currencyID",
  ],
  InvoiceLine: [
    "cbc:ID 1..1",
    "cbc:InvoicedQuantity 0..1 @unitCode",
    "cbc:LineExtensionAmount 1..1 @currencyID",
    "cac:Item 1..1 Item",
    "cac:Price 0..1 Price",
  ],
  CreditNoteLine: [
    "cbc:ID 1..1",
    "cbc:CreditedQuantity 0..1 @unitCode",
    "cbc:LineExtensionAmount 0..1 @currencyID",
    "cac:Item 0..1 Item",
    "cac:Price 0..1 Price",
  ],
  Item: ["cbc:Name 0..1", "cac:ClassifiedTaxCategory 0..n TaxCategory"],
  Price: ["cbc:PriceAmount 1..1 @currencyID"],
};

const UBL_COMMON = {
  "xmlns:cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  "xmlns:cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
};
const UBL_INVOICE: Schema = {
  root: "Invoice",
  rootType: "Invoice",
  namespaces: { xmlns: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2", ...UBL_COMMON },
  types: UBL_TYPES,
};
const UBL_CREDIT_NOTE: Schema = {
  root: "CreditNote",
  rootType: "CreditNote",
  namespaces: { xmlns: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2", ...UBL_COMMON },
  types: UBL_TYPES,
};

interface ChildRule {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly type?: string;
  readonly attributes: ReadonlyArray<{ readonly name: string; readonly required: boolean }>;
}

function parseRule(rule: string): ChildRule {
  const [name, cardinality, ...rest] = rule.split(" ");
  const [min, max] = cardinality!.split("..");
  const attributes = rest
    .filter((token) => token.startsWith("@"))
    .map((token) => ({ name: token.replace(/^@|\?$/g, ""), required: !token.endsWith("?") }));
  return {
    name: name!,
    min: Number(min),
    max: max === "n" ? Number.POSITIVE_INFINITY : Number(max),
    type: rest.find((token) => !token.startsWith("@")),
    attributes,
  };
}

const parsed = new Map<readonly string[], readonly ChildRule[]>();

function rulesOf(schema: Schema, type: string): readonly ChildRule[] {
  const rules = schema.types[type];
  if (!rules) throw new Error(`schema description has no type ${type}`);
  const known = parsed.get(rules);
  if (known) return known;
  const found = rules.map(parseRule);
  parsed.set(rules, found);
  return found;
}

/** Children against one sequence: order, cardinality, required ones present, nothing unknown. */
function checkSequence(node: XmlNode, rules: readonly ChildRule[], path: string, errors: string[]): void {
  let at = 0;
  let count = 0;
  for (const child of node.children) {
    const index = rules.findIndex((rule, i) => i >= at && rule.name === child.name);
    if (index === -1) {
      const known = rules.some((rule) => rule.name === child.name);
      errors.push(`${path}/${child.name}: ${known ? "out of schema order" : "not allowed here"}`);
      continue;
    }
    for (let skipped = at; skipped < index; skipped++) {
      const rule = rules[skipped]!;
      const seen = skipped === at ? count : 0;
      if (seen < rule.min) errors.push(`${path}: ${rule.name} missing before ${child.name}`);
    }
    count = index === at ? count + 1 : 1;
    at = index;
    if (count > rules[at]!.max) errors.push(`${path}/${child.name}: more than ${rules[at]!.max}`);
  }
  for (let rest = at; rest < rules.length; rest++) {
    const seen = rest === at && node.children.length > 0 ? count : 0;
    if (seen < rules[rest]!.min) errors.push(`${path}: ${rules[rest]!.name} missing`);
  }
}

function checkAttributes(node: XmlNode, rule: ChildRule, path: string, errors: string[]): void {
  for (const attribute of rule.attributes) {
    if (attribute.required && node.attributes[attribute.name] === undefined) {
      errors.push(`${path}: attribute ${attribute.name} missing`);
    }
  }
  for (const [name, value] of Object.entries(node.attributes)) {
    if (!rule.attributes.some((a) => a.name === name)) errors.push(`${path}: attribute ${name} not allowed`);
    else if (value === "") errors.push(`${path}: attribute ${name} empty`);
  }
}

function checkElement(node: XmlNode, rule: ChildRule, schema: Schema, path: string, errors: string[]): void {
  checkAttributes(node, rule, path, errors);
  if (rule.type === undefined) {
    if (node.children.length > 0) errors.push(`${path}: text element with child elements`);
    if (node.text.trim() === "") errors.push(`${path}: empty text element`);
    return;
  }
  const rules = rulesOf(schema, rule.type);
  if (node.text.trim() !== "") errors.push(`${path}: text in an element of type ${rule.type}`);
  if (node.children.length === 0 && rules.length > 0) errors.push(`${path}: empty element`);
  checkSequence(node, rules, path, errors);
  for (const child of node.children) {
    const childRule = rules.find((r) => r.name === child.name);
    if (childRule) checkElement(child, childRule, schema, `${path}/${child.name}`, errors);
  }
}

/** Every way the document departs from the schema description; empty when it conforms. */
function schemaErrors(xml: string, schema: Schema): string[] {
  const errors: string[] = [];
  if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')) errors.push("no UTF-8 XML declaration");
  const root = parseXml(xml);
  if (root.name !== schema.root) return [...errors, `root is ${root.name}, not ${schema.root}`];
  const declared = Object.fromEntries(Object.entries(root.attributes).filter(([name]) => name.startsWith("xmlns")));
  if (JSON.stringify(declared) !== JSON.stringify(schema.namespaces)) {
    errors.push(`namespaces ${JSON.stringify(declared)}`);
  }
  const prefixes = new Set(Object.keys(schema.namespaces).map((n) => (n === "xmlns" ? "" : n.slice(6))));
  for (const { node, path } of walk(root)) {
    const prefix = node.name.includes(":") ? node.name.split(":")[0]! : "";
    if (!prefixes.has(prefix)) errors.push(`${path}: undeclared prefix "${prefix}"`);
  }
  const rootRule: ChildRule = {
    ...parseRule(`${schema.root} 1..1 ${schema.rootType}`),
    attributes: Object.keys(schema.namespaces).map((name) => ({ name, required: true })),
  };
  checkElement(root, rootRule, schema, root.name, errors);
  return errors;
}

const FORMATS: readonly EinvoiceFormat[] = ["factur-x", "xrechnung", "peppol-bis"];

function schemaFor(format: EinvoiceFormat, invoice: ComputedInvoice): Schema {
  if (format !== "peppol-bis") return CII;
  return invoice.typeCode === "381" ? UBL_CREDIT_NOTE : UBL_INVOICE;
}

describe("the written XML against the schema description", () => {
  for (const format of FORMATS) {
    for (const [name, invoice] of Object.entries(EINVOICE_FIXTURES)) {
      it(`${format}, ${name}: order, cardinality, required children, known elements, namespaces`, () => {
        expect(schemaErrors(writeEinvoiceXml(invoice, format), schemaFor(format, invoice))).toEqual([]);
      });
    }
  }

  it("writes a 2,000-line invoice that conforms too, every line in it", () => {
    const invoice = manyLinesInvoice(2000);
    for (const format of FORMATS) {
      const xml = writeEinvoiceXml(invoice, format);
      expect(schemaErrors(xml, schemaFor(format, invoice))).toEqual([]);
      const root = parseXml(xml);
      const lines =
        format === "peppol-bis"
          ? all(root, "cac:InvoiceLine")
          : all(root, "rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem");
      expect(lines).toHaveLength(2000);
    }
  });
});

describe("the schema checker rejects what the schemas reject", () => {
  const cii = writeEinvoiceXml(eurInvoice, "factur-x");
  const ubl = writeEinvoiceXml(eurInvoice, "peppol-bis");
  const mutate = (xml: string, from: string | RegExp, to: string) => {
    const changed = xml.replace(from, to);
    expect(changed).not.toBe(xml);
    return changed;
  };

  it("a hand-made UBL invoice with IssueDate before ID", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="${UBL_COMMON["xmlns:cac"]}" xmlns:cbc="${UBL_COMMON["xmlns:cbc"]}">
  <cbc:IssueDate>2025-01-01</cbc:IssueDate>
  <cbc:ID>1</cbc:ID>
</Invoice>`;
    expect(schemaErrors(xml, UBL_INVOICE)).toEqual(
      expect.arrayContaining(["Invoice/cbc:ID: out of schema order", "Invoice: cac:InvoiceLine missing"]),
    );
  });

  it("a CII document with TypeCode before ID, and a breakdown row in the wrong order", () => {
    const swapped = mutate(cii, /(<ram:ID>RE-2025-0042<\/ram:ID>\n)(\s*<ram:TypeCode>380<\/ram:TypeCode>\n)/, "$2$1");
    expect(schemaErrors(swapped, CII)).toContain(
      "rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:ID: out of schema order",
    );
    const tax = mutate(
      cii,
      /(<ram:CalculatedAmount>190.00<\/ram:CalculatedAmount>\n)(\s*<ram:TypeCode>VAT<\/ram:TypeCode>\n)(\s*<ram:BasisAmount>1000.00<\/ram:BasisAmount>\n)/,
      "$3$2$1",
    );
    expect(schemaErrors(tax, CII).join("\n")).toMatch(/ApplicableTradeTax\/ram:TypeCode: out of schema order/);
  });

  it("unknown elements, missing required ones, too many, empty ones, missing attributes, wrong namespaces", () => {
    const settlement = "rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement";
    expect(
      schemaErrors(mutate(cii, "<ram:BuyerReference>", "<ram:Unknown>x</ram:Unknown><ram:BuyerReference>"), CII),
    ).toEqual([
      "rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:Unknown: not allowed here",
    ]);
    expect(schemaErrors(mutate(cii, /\s*<ram:InvoiceCurrencyCode>EUR<\/ram:InvoiceCurrencyCode>/, ""), CII)).toEqual([
      `${settlement}: ram:InvoiceCurrencyCode missing before ram:SpecifiedTradeSettlementPaymentMeans`,
    ]);
    expect(
      schemaErrors(
        mutate(
          cii,
          "<ram:InvoiceCurrencyCode>EUR",
          "<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode><ram:InvoiceCurrencyCode>EUR",
        ),
        CII,
      ),
    ).toEqual([`${settlement}/ram:InvoiceCurrencyCode: more than 1`]);
    expect(schemaErrors(mutate(cii, "<ram:Reason>Versand</ram:Reason>", "<ram:Reason></ram:Reason>"), CII)).toEqual([
      `${settlement}/ram:SpecifiedTradeAllowanceCharge/ram:Reason: empty text element`,
    ]);
    expect(schemaErrors(mutate(ubl, ' unitCode="HUR"', ""), UBL_INVOICE)).toContain(
      "Invoice/cac:InvoiceLine/cbc:InvoicedQuantity: attribute unitCode missing",
    );
    expect(schemaErrors(mutate(ubl, "CommonBasicComponents-2", "CommonBasicComponents-3"), UBL_INVOICE)).toHaveLength(
      1,
    );
    expect(schemaErrors(mutate(ubl, "<cbc:ID>RE-2025-0042</cbc:ID>", "<x:ID>RE</x:ID>"), UBL_INVOICE)).toContain(
      'Invoice/x:ID: undeclared prefix "x"',
    );
    expect(schemaErrors(ubl, UBL_CREDIT_NOTE)).toEqual(["root is Invoice, not CreditNote"]);
  });
});

describe("what the writers put in the elements", () => {
  it("amounts with exactly the currency's minor digits, prices and quantities without binary noise", () => {
    expect([formatAmount(1247.78, 2), formatAmount(5, 2), formatAmount(115703, 0), formatAmount(-0.001, 2)]).toEqual([
      "1247.78",
      "5.00",
      "115703",
      "0.00",
    ]);
    expect([0.1 + 0.2, 19, 7.5, 0.3334, 1.23456789, 1e-7, -2.5, 0].map(formatDecimal)).toEqual([
      "0.3",
      "19",
      "7.5",
      "0.3334",
      "1.23456789",
      "0.0000001",
      "-2.5",
      "0",
    ]);
    expect(formatDate102("2025-03-14")).toBe("20250314");
    const cii = writeEinvoiceXml(eurInvoice, "factur-x");
    expect(cii).toContain('<ram:BilledQuantity unitCode="HUR">0.3</ram:BilledQuantity>');
    expect(cii).toContain("<ram:ChargeAmount>0.3334</ram:ChargeAmount>");
    expect(cii).toContain('<udt:DateTimeString format="102">20250314</udt:DateTimeString>');
    const jpy = writeEinvoiceXml(jpyInvoice, "peppol-bis");
    expect(jpy).toContain('<cbc:PayableAmount currencyID="JPY">115703</cbc:PayableAmount>');
    expect(jpy).toContain("<cbc:IssueDate>2025-01-31</cbc:IssueDate>");
  });

  it("every amount element of every output has the currency's digits", () => {
    for (const format of FORMATS) {
      for (const invoice of Object.values(EINVOICE_FIXTURES)) {
        const digits = invoice.minorDigits === 0 ? /^\d+$/ : new RegExp(`^\\d+\\.\\d{${invoice.minorDigits}}$`);
        const amounts = walk(parseXml(writeEinvoiceXml(invoice, format)))
          .map(({ node }) => node)
          // Prices (CII ChargeAmount, UBL PriceAmount) keep their own decimals.
          .filter((node) => /Amount$/.test(node.name) && !/(ChargeAmount|PriceAmount)$/.test(node.name));
        expect(amounts.length).toBeGreaterThan(5);
        for (const { name, text } of amounts)
          expect({ name, text }).toEqual({ name, text: expect.stringMatching(digits) });
      }
    }
  });

  it("escapes with the project's escaper and keeps XML 1.0 well-formed for characters it cannot carry", () => {
    const xml = writeEinvoiceXml(eurInvoice, "xrechnung");
    expect(xml).not.toContain("<GmbH>");
    expect(xml).toContain("Tom &amp; Jerry &lt;GmbH&gt; &quot;quoted&quot; &#39;single&#39; &amp;amp; 請求書テスト");
    expect(xmlText("a\u0001b\uD800c\uFFFEd\te\n😀")).toBe("a\uFFFDb\uFFFDc\uFFFDd\te\n😀");
    const control = { ...eurInvoice, notes: ["bell\u0007 and a lone \uDC00 surrogate"] };
    expect(() => parseXml(writeEinvoiceXml(control, "factur-x"))).not.toThrow();
  });

  it("gives the same bytes for the same invoice", () => {
    for (const format of FORMATS) {
      expect(writeEinvoiceXml(structuredClone(eurInvoice), format)).toBe(writeEinvoiceXml(eurInvoice, format));
    }
  });

  it("omits optional elements the invoice leaves empty", () => {
    const bare: ComputedInvoice = {
      ...eurInvoice,
      notes: [""],
      buyerReference: undefined,
      orderReference: undefined,
      paymentTerms: undefined,
      dueDate: undefined,
      payment: undefined,
      allowances: [],
      charges: [],
      buyer: { name: "Käufer", address: { country: "DE" } },
    };
    for (const format of FORMATS) {
      const xml = writeEinvoiceXml(bare, format);
      expect(schemaErrors(xml, schemaFor(format, bare))).toEqual([]);
      expect(xml).not.toMatch(/Note|BuyerReference|OrderReference|PaymentTerms|PaymentMeans|AllowanceCharge|DueDate/);
      expect(xml).not.toMatch(/ChargeTotalAmount|AllowanceTotalAmount/);
    }
  });

  it("refuses an invoice that skipped the checks rather than write an invalid document", () => {
    expect(() => writeEinvoiceXml({ ...eurInvoice, number: undefined }, "factur-x")).toThrow(/BT-1 is missing/);
    expect(() => writeEinvoiceXml({ ...eurInvoice, lines: [] }, "peppol-bis")).toThrow(/BG-25 is missing/);
    expect(() => writeEinvoiceXml({ ...eurInvoice, vatBreakdown: [] }, "xrechnung")).toThrow(/BG-23 is missing/);
  });
});

describe("formats and document kinds", () => {
  it("names the guideline of each CII format and Peppol's customization and profile", () => {
    const context = (format: EinvoiceFormat) =>
      all(
        parseXml(writeEinvoiceXml(eurInvoice, format)),
        "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID",
      )[0]?.text;
    expect(context("factur-x")).toBe("urn:cen.eu:en16931:2017");
    expect(context("xrechnung")).toBe("urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0");
    const ubl = parseXml(writeEinvoiceXml(eurInvoice, "peppol-bis"));
    expect(all(ubl, "cbc:CustomizationID")[0]?.text).toBe(
      "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0",
    );
    expect(all(ubl, "cbc:ProfileID")[0]?.text).toBe("urn:fdc:peppol.eu:2017:poacc:billing:01:1.0");
  });

  it("writes a Peppol credit note as a UBL CreditNote with its due date in the payment means", () => {
    const root = parseXml(writeEinvoiceXml(creditNote, "peppol-bis"));
    expect(root.name).toBe("CreditNote");
    expect(all(root, "cbc:CreditNoteTypeCode")[0]?.text).toBe("381");
    expect(all(root, "cbc:DueDate")).toEqual([]);
    expect(all(root, "cac:PaymentMeans/cbc:PaymentDueDate")[0]?.text).toBe("2025-05-16");
    expect(all(root, "cac:CreditNoteLine/cbc:CreditedQuantity")[0]?.text).toBe("1");
    const cii = parseXml(writeEinvoiceXml(creditNote, "xrechnung"));
    expect(all(cii, "rsm:ExchangedDocument/ram:TypeCode")[0]?.text).toBe("381");
  });

  it("says when a format cannot carry the invoice: a Peppol credit note's due date needs payment means", () => {
    const withoutMeans = { ...creditNote, payment: undefined };
    expect(unsupportedFor("peppol-bis", withoutMeans)).toMatch(/BT-9.*BT-81/);
    expect(unsupportedFor("factur-x", withoutMeans)).toBeUndefined();
    expect(unsupportedFor("peppol-bis", creditNote)).toBeUndefined();
    expect(unsupportedFor("peppol-bis", { ...withoutMeans, dueDate: undefined })).toBeUndefined();
    for (const invoice of Object.values(EINVOICE_FIXTURES)) {
      for (const format of FORMATS) expect(unsupportedFor(format, invoice)).toBeUndefined();
    }
  });
});
