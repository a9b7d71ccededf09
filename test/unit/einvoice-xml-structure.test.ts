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
import { CII, UBL_COMMON, UBL_CREDIT_NOTE, UBL_INVOICE } from "../helpers/einvoice-schemas.ts";
import { all, parseXml, type Schema, schemaErrors, walk } from "../helpers/einvoice-xml.ts";

/**
 * The XML writers' output against our own description of the CII D16B and UBL 2.1 schemas
 * (test/helpers/einvoice-schemas.ts; the official XSDs are not in the repository), a proof that the
 * checker rejects what those schemas reject, and the lexical form of what goes in the elements.
 */
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
