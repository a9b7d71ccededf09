import type { Schema, Types } from "./einvoice-xml.ts";

/**
 * The official XSDs are not in the repository. Below is our own description of the part of each
 * schema the writers emit: for every complex type, its children in schema order as
 * `name min..max [Type] [@attribute | @optionalAttribute?]`. A child without a type is a text
 * element, which must not be empty. A type listed with no children (CII's header delivery) is the
 * only element that may be written empty.
 */

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

export const CII: Schema = {
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

export const UBL_COMMON = {
  "xmlns:cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  "xmlns:cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
};
export const UBL_INVOICE: Schema = {
  root: "Invoice",
  rootType: "Invoice",
  namespaces: { xmlns: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2", ...UBL_COMMON },
  types: UBL_TYPES,
};
export const UBL_CREDIT_NOTE: Schema = {
  root: "CreditNote",
  rootType: "CreditNote",
  namespaces: { xmlns: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2", ...UBL_COMMON },
  types: UBL_TYPES,
};
