import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { einvoiceOf, FACTUR_X_FILE_NAME } from "#shared/render/einvoice-write.ts";
import { RenderError } from "#shared/render/render-error.ts";
import { renderEinvoiceMapping, renderHtml } from "#shared/render/template.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { baseInvoice, invoiceWith } from "../helpers/einvoice-model-fixtures.ts";

/** The mapping of a client that sends the model itself. */
const WHOLE_MODEL = "{{ invoice | json }}";

function caught(run: () => unknown): RenderError {
  try {
    run();
  } catch (error) {
    if (error instanceof RenderError) return error;
    throw error;
  }
  throw new Error("expected a RenderError");
}

describe("the e-invoice mapping", () => {
  it("sees every key of the params as sent and writes values unescaped", () => {
    const invoice = invoiceWith((i) => {
      i.seller!.name = `Tom & Jerry <GmbH> "Berlin"`;
    });
    const json = renderEinvoiceMapping(WHOLE_MODEL, { invoice, extra: 1 }, {});
    expect(JSON.parse(json)).toEqual(invoice);
  });

  it("maps named params into the model with the json filter", () => {
    const mapping = `{"number": {{ no | json }}, "notes": {{ notes | json }}}`;
    const json = renderEinvoiceMapping(mapping, { no: "A-1", notes: ["x", "y"] }, {});
    expect(JSON.parse(json)).toEqual({ number: "A-1", notes: ["x", "y"] });
  });

  it("names einvoice.liquid when the mapping does not parse", () => {
    const error = caught(() => renderEinvoiceMapping("{{ invoice | json ", {}, {}));
    expect(error.code).toBe("TEMPLATE_FAILED");
    expect(error.message).toMatch(/^einvoice\.liquid: /);
  });
});

describe("einvoiceOf", () => {
  it("computes the invoice and writes its XML as UTF-8 bytes", () => {
    const doc = einvoiceOf(JSON.stringify(baseInvoice()), "factur-x");
    expect(doc.invoice.totals.grandTotal).toBe(51.99);
    const xml = doc.xml.toString("utf8");
    expect(xml.startsWith("<?xml")).toBe(true);
    const parsed = new XMLParser({ removeNSPrefix: true }).parse(xml);
    const summation =
      parsed.CrossIndustryInvoice.SupplyChainTradeTransaction.ApplicableHeaderTradeSettlement
        .SpecifiedTradeSettlementHeaderMonetarySummation;
    expect(Number(summation.GrandTotalAmount)).toBe(51.99);
  });

  it("refuses output that is not JSON as TEMPLATE_FAILED naming the line", () => {
    const error = caught(() => einvoiceOf('{\n"number": "1",\n}', "factur-x"));
    expect(error.code).toBe("TEMPLATE_FAILED");
    expect(error.message).toMatch(/einvoice\.liquid: .*line 3/);
  });

  it("names the line and column of an unexpected token, where V8 gives no position, without quoting the output", () => {
    // An empty value between a key and a comma: the usual slip of a mapping without | json.
    const error = caught(() => einvoiceOf('{\n"number": "INV-1",\n"currency": ,\n"note": "Secret GmbH"}', "factur-x"));
    expect(error.code).toBe("TEMPLATE_FAILED");
    expect(error.message).toBe(
      "einvoice.liquid: the mapping did not render JSON at line 3, column 13 of its output (Unexpected token ',')",
    );
    const empty = caught(() => einvoiceOf("", "factur-x"));
    expect(empty.message).toBe(
      "einvoice.liquid: the mapping did not render JSON at line 1, column 1 of its output (Unexpected end of JSON input)",
    );
  });

  it("refuses an invoice that breaks a rule with each field and rule", () => {
    const model = invoiceWith((i) => {
      delete i.seller!.name;
    });
    const error = caught(() => einvoiceOf(JSON.stringify(model), "factur-x"));
    expect(error.code).toBe("EINVOICE_INVALID");
    expect(error.permanent).toBe(true);
    expect(error.violations).toContainEqual(expect.objectContaining({ path: "seller.name", rule: "BR-06" }));
    expect(error.message).toContain("BR-06 seller.name");
  });

  it("applies the format's own rules (XRechnung needs the buyer reference)", () => {
    const model = invoiceWith((i) => {
      delete i.buyerReference;
    });
    expect(() => einvoiceOf(JSON.stringify(model), "factur-x")).not.toThrow();
    const error = caught(() => einvoiceOf(JSON.stringify(model), "xrechnung"));
    expect(error.violations?.map((v) => v.path)).toContain("buyerReference");
  });
});

describe("einvoiceArchive", () => {
  it("embeds Factur-X in a PDF/A-3b as an alternative representation", () => {
    const doc = einvoiceOf(JSON.stringify(baseInvoice()), "factur-x");
    const archive = doc.archive;
    expect(archive.standard).toBe("PDF/A-3b");
    expect(archive.attachments).toEqual([
      expect.objectContaining({ name: FACTUR_X_FILE_NAME, mimeType: "text/xml", relationship: "Alternative" }),
    ]);
    expect(archive.attachments?.[0]?.bytes).toBe(doc.xml);
    expect(archive.facturX).toEqual(
      expect.objectContaining({ conformanceLevel: "EN 16931", fileName: "factur-x.xml" }),
    );
  });

  it("asks nothing of the PDF for the XML-only formats or without an e-invoice", () => {
    expect(einvoiceOf(JSON.stringify(baseInvoice()), "peppol-bis").archive).toEqual({});
  });
});

describe("the template", () => {
  it("sees the computed invoice as einvoice, so the printed total is the XML's", async () => {
    const doc = einvoiceOf(JSON.stringify(baseInvoice()), "factur-x");
    const bundle: DesignBundle = {
      manifest: designManifestSchema.parse({ label: "Invoice", parameters: [] }),
      template: "<p>{{ einvoice.totals.grandTotal }} {{ einvoice.currency }}</p>",
      css: "",
      assets: {},
    };
    const html = await renderHtml(bundle, {}, { title: "t", einvoice: doc.invoice });
    expect(html).toContain("<p>51.99 EUR</p>");
  });
});
