import { describe, expect, it } from "vitest";
import { checkInvoice, MAX_VIOLATIONS, parseEinvoiceFormat } from "#shared/einvoice/check.ts";
import { computeInvoice } from "#shared/einvoice/compute.ts";
import { invoiceModelSchema } from "#shared/einvoice/model.ts";
import { baseInvoice, invoiceWith } from "../helpers/einvoice-model-fixtures.ts";

const violationsOf = (input: unknown, format: "factur-x" | "xrechnung" | "peppol-bis" = "factur-x") => {
  const result = checkInvoice(input, format);
  return result.ok ? [] : result.violations;
};

describe("checkInvoice", () => {
  it("hands out the computed invoice of a valid model", () => {
    const result = checkInvoice(baseInvoice(), "xrechnung");
    expect(result).toEqual({ ok: true, invoice: computeInvoice(invoiceModelSchema.parse(baseInvoice())) });
  });

  it("reports a value of the wrong shape as MODEL at its path, saying what was expected", () => {
    const input = invoiceWith((m) => {
      m.currency = "eur";
      Object.assign(m.lines![0]!, { quantity: "three" });
      Object.assign(m.seller!, { colour: "blue" });
    });
    expect(violationsOf(input)).toEqual([
      {
        path: "currency",
        rule: "MODEL",
        message: {
          en: "must be an ISO 4217 code such as EUR",
          ja: "EUR のような ISO 4217 の通貨コードでなければなりません",
        },
      },
      {
        path: "seller.colour",
        rule: "MODEL",
        message: expect.objectContaining({ en: expect.stringContaining("colour") }),
      },
      {
        path: "lines.0.quantity",
        rule: "MODEL",
        message: {
          en: 'expected a number or a decimal string such as "12.50"',
          ja: '数値、または "12.50" のような小数の文字列が必要です',
        },
      },
    ]);
  });

  it("reports a value that is not an object at all", () => {
    const [violation] = violationsOf("not an invoice");
    expect(violation).toMatchObject({ path: "", rule: "MODEL" });
    expect(violation?.message.en).toContain("expected object");
    expect(violation?.message.ja).not.toBe("");
  });

  it("stops at the shape: business rules run only on a well-shaped model", () => {
    const rules = violationsOf({ lines: [{ quantity: true }] }).map((v) => v.rule);
    expect(rules).toEqual(["MODEL"]);
  });

  it("caps the violations of a huge bad invoice, in a stable order, and says how many it left out", () => {
    const input = invoiceWith((m) => (m.lines = Array.from({ length: 2000 }, () => ({}))));
    const first = checkInvoice(input, "factur-x");
    const again = checkInvoice(input, "factur-x");
    expect(first.ok).toBe(false);
    if (first.ok) return;
    expect(first.violations).toHaveLength(MAX_VIOLATIONS);
    // Each line misses its id, quantity, name, price and VAT category: 10,000 in all.
    expect(first.omitted).toBe(2000 * 5 - MAX_VIOLATIONS);
    expect(first.violations.slice(0, 2).map((v) => `${v.rule} ${v.path}`)).toEqual([
      "BR-21 lines.0.id",
      "BR-21 lines.1.id",
    ]);
    expect(again).toEqual(first);
  });

  it("checks and computes an invoice of 2,000 lines", () => {
    const input = invoiceWith((m) => {
      m.lines = Array.from({ length: 2000 }, (_, i) => ({
        id: String(i + 1),
        name: `Item ${i + 1}`,
        quantity: 1 + (i % 7),
        netPrice: 0.99 + (i % 13),
        vat: { category: "S" as const, rate: i % 2 ? 19 : 7 },
      }));
    });
    const result = checkInvoice(input, "peppol-bis");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.invoice.lines).toHaveLength(2000);
    expect(result.invoice.vatBreakdown.map((r) => r.rate)).toEqual([7, 19]);
  });
});

describe("parseEinvoiceFormat", () => {
  it.each([
    ["factur-x", "factur-x"],
    ["zugferd", "factur-x"],
    ["ZUGFeRD", "factur-x"],
    ["xrechnung", "xrechnung"],
    [" peppol-bis ", "peppol-bis"],
    ["ubl", undefined],
    ["", undefined],
  ])("%j is %j", (name, format) => {
    expect(parseEinvoiceFormat(name)).toBe(format);
  });
});
