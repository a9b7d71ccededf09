import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeInvoice } from "#shared/einvoice/compute.ts";
import { type InvoiceModel, invoiceModelSchema, VAT_CATEGORIES, type VatCategory } from "#shared/einvoice/model.ts";
import { baseInvoice, invoiceWith, type ModelInput } from "../helpers/einvoice-model-fixtures.ts";

const compute = (input: ModelInput) => computeInvoice(invoiceModelSchema.parse(input));

/** A line of the model at a VAT category and rate. */
const line = (quantity: number, netPrice: number | string, category: VatCategory, rate?: number) => ({
  id: "x",
  name: "x",
  quantity,
  netPrice,
  vat: rate === undefined ? { category } : { category, rate },
});

describe("computeInvoice, hand-checked", () => {
  it("EUR at 19 % and 7 % with an allowance and a charge", () => {
    const invoice = compute(baseInvoice());
    expect(invoice.minorDigits).toBe(2);
    expect(invoice.lines.map((l) => l.netAmount)).toEqual([30.3, 15]);
    expect(invoice.vatBreakdown).toEqual([
      { category: "S", rate: 7, taxableAmount: 15, taxAmount: 1.05 },
      // 30.30 − 5.00 + 4.90 = 30.20; 30.20 × 19 % = 5.738 → 5.74
      { category: "S", rate: 19, taxableAmount: 30.2, taxAmount: 5.74 },
    ]);
    expect(invoice.totals).toEqual({
      lineTotal: 45.3,
      allowanceTotal: 5,
      chargeTotal: 4.9,
      taxBasis: 45.2,
      taxTotal: 6.79,
      grandTotal: 51.99,
      duePayable: 51.99,
    });
  });

  it("JPY at 10 % and 8 %, without decimals, half a yen rounded up", () => {
    const invoice = compute(
      invoiceWith((m) => {
        m.currency = "JPY";
        m.lines = [
          line(3, 1280, "S", 10), // 3,840
          line(2, "333.5", "S", 10), // 667
          line(5, 398, "S", 8), // 1,990
          line(1.5, 99, "S", 8), // 148.5 → 149
        ];
        m.allowances = [{ amount: 500, reason: "値引き", vat: { category: "S", rate: 10 } }];
        m.charges = [];
      }),
    );
    expect(invoice.minorDigits).toBe(0);
    expect(invoice.lines.map((l) => l.netAmount)).toEqual([3840, 667, 1990, 149]);
    expect(invoice.vatBreakdown).toEqual([
      // 1,990 + 149 = 2,139; × 8 % = 171.12 → 171
      { category: "S", rate: 8, taxableAmount: 2139, taxAmount: 171 },
      // 3,840 + 667 − 500 = 4,007; × 10 % = 400.7 → 401
      { category: "S", rate: 10, taxableAmount: 4007, taxAmount: 401 },
    ]);
    expect(invoice.totals).toEqual({
      lineTotal: 6646,
      allowanceTotal: 500,
      chargeTotal: 0,
      taxBasis: 6146,
      taxTotal: 572,
      grandTotal: 6718,
      duePayable: 6718,
    });
  });

  it("rounds the tax once per breakdown row, not per line", () => {
    // Seven lines of 0.10 at 7 %: per line 0.007 → 0.01 would make 0.07; the row says 0.70 × 7 % = 0.049 → 0.05.
    const invoice = compute(invoiceWith((m) => (m.lines = Array.from({ length: 7 }, () => line(1, 0.1, "S", 7)))));
    expect(invoice.vatBreakdown.find((row) => row.rate === 7)).toEqual({
      category: "S",
      rate: 7,
      taxableAmount: 0.7,
      taxAmount: 0.05,
    });
  });

  it("computes exactly: 1.005 rounds to 1.01, −1.005 to −1.01, 0.1 + 0.2 is 0.3", () => {
    const invoice = compute(
      invoiceWith((m) => {
        m.lines = [line(1, 1.005, "S", 19), line(-1, 1.005, "S", 19), line(1, 0.1, "S", 7), line(1, 0.2, "S", 7)];
        m.allowances = [];
        m.charges = [];
      }),
    );
    expect(invoice.lines.map((l) => l.netAmount)).toEqual([1.01, -1.01, 0.1, 0.2]);
    expect(invoice.totals.lineTotal).toBe(0.3);
    expect(invoice.vatBreakdown.find((row) => row.rate === 7)?.taxableAmount).toBe(0.3);
  });

  it("orders the breakdown by category then rate, whatever the order of the lines, with its exemption reasons", () => {
    const invoice = compute(
      invoiceWith((m) => {
        m.lines = [line(1, 10, "E", 0), line(1, 10, "S", 19), line(1, 10, "Z", 0), line(1, 10, "S", 7)];
        m.allowances = [];
        m.charges = [];
        m.vatExemptionReasons = { E: "Exempt under §4 UStG", K: "not used" };
      }),
    );
    expect(invoice.vatBreakdown.map((r) => [r.category, r.rate, r.exemptionReason])).toEqual([
      ["S", 7, undefined],
      ["S", 19, undefined],
      ["Z", 0, undefined],
      ["E", 0, "Exempt under §4 UStG"],
    ]);
  });

  it("takes the digits from the currency, at most two (EN 16931 allows no more)", () => {
    const digits = (currency: string) => compute(invoiceWith((m) => (m.currency = currency))).minorDigits;
    expect([digits("EUR"), digits("JPY"), digits("KRW"), digits("BHD"), digits("XYZ")]).toEqual([2, 0, 0, 2, 2]);
  });

  it("ignores the totals a mapping gives: they are checked, never used", () => {
    const invoice = compute(invoiceWith((m) => (m.totals = { grandTotal: 1, taxTotal: 99 })));
    expect(invoice.totals.grandTotal).toBe(51.99);
    expect(invoice.totals.taxTotal).toBe(6.79);
  });

  it("does not throw on a model that breaks the rules: absent numbers are 0, items without VAT are left out", () => {
    const model: InvoiceModel = invoiceModelSchema.parse({
      lines: [{ netPrice: 5, vat: { category: "S", rate: 19 } }, { quantity: 2, netPrice: 3 }, {}],
      allowances: [{ reason: "no amount", vat: { category: "S", rate: 19 } }],
      charges: [{ amount: 1 }],
    });
    const invoice = computeInvoice(model);
    expect(invoice.lines.map((l) => l.netAmount)).toEqual([0, 6, 0]);
    expect(invoice.vatBreakdown).toEqual([{ category: "S", rate: 19, taxableAmount: 0, taxAmount: 0 }]);
    expect(invoice.totals).toMatchObject({ lineTotal: 6, chargeTotal: 1, taxBasis: 7, grandTotal: 7 });
    expect(computeInvoice(invoiceModelSchema.parse({})).totals.grandTotal).toBe(0);
  });
});

/** Amounts are compared in cents: every computed amount has at most two decimals. */
const cents = (amount: number) => Math.round(amount * 100);
const hasAtMost = (digits: number) => (amount: number) => Number.isInteger(Number((amount * 10 ** digits).toFixed(6)));

const anyVat = fc.oneof(
  fc.record({ category: fc.constantFrom("S", "L", "M"), rate: fc.constantFrom(5.5, 7, 10, 19, 20, 21) }),
  fc.record({ category: fc.constantFrom("Z", "E", "AE", "K", "G"), rate: fc.constant(0) }),
);
const anyAmount = fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100);
const anyLine = fc.record({
  id: fc.constant("1"),
  name: fc.constant("item"),
  quantity: fc.integer({ min: -1000, max: 100_000 }).map((q) => q / 1000),
  netPrice: fc.integer({ min: 0, max: 1_000_000 }).map((p) => p / 10_000),
  vat: anyVat,
});
const anyInvoice = fc.record({
  currency: fc.constantFrom("EUR", "JPY", "USD", "BHD"),
  lines: fc.array(anyLine, { minLength: 1, maxLength: 30 }),
  allowances: fc.array(fc.record({ amount: anyAmount, reason: fc.constant("a"), vat: anyVat }), { maxLength: 3 }),
  charges: fc.array(fc.record({ amount: anyAmount, reason: fc.constant("c"), vat: anyVat }), { maxLength: 3 }),
});

describe("computeInvoice, properties", () => {
  it("totals are consistent and every amount is rounded to the currency", () => {
    fc.assert(
      fc.property(anyInvoice, (input) => {
        const { totals: t, vatBreakdown, lines, minorDigits } = computeInvoice(invoiceModelSchema.parse(input));
        const sumOf = (amounts: number[]) => amounts.reduce((a, b) => a + cents(b), 0);
        expect(cents(t.lineTotal)).toBe(sumOf(lines.map((l) => l.netAmount)));
        expect(cents(t.taxBasis)).toBe(cents(t.lineTotal) - cents(t.allowanceTotal) + cents(t.chargeTotal));
        expect(cents(t.taxTotal)).toBe(sumOf(vatBreakdown.map((r) => r.taxAmount)));
        expect(cents(t.grandTotal)).toBe(cents(t.taxBasis) + cents(t.taxTotal));
        expect(t.duePayable).toBe(t.grandTotal);
        const amounts = [
          ...Object.values(t),
          ...lines.map((l) => l.netAmount),
          ...vatBreakdown.map((r) => r.taxAmount),
        ];
        expect(amounts.every(hasAtMost(minorDigits))).toBe(true);
        if (minorDigits === 2) {
          // Allowances and charges have at most two decimals here, so the rows add up to the basis exactly.
          expect(sumOf(vatBreakdown.map((r) => r.taxableAmount))).toBe(cents(t.taxBasis));
        }
        for (const row of vatBreakdown) {
          // The tax is the rounded product, so it is within half a minor unit of the exact one.
          const exact = (row.taxableAmount * (row.rate ?? 0)) / 100;
          expect(Math.abs(row.taxAmount - exact)).toBeLessThanOrEqual(0.5 * 10 ** -minorDigits + 1e-9);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the breakdown is the same whatever the order of the lines", () => {
    const withShuffledLines = anyInvoice.chain((input) =>
      fc
        .shuffledSubarray(input.lines, { minLength: input.lines.length, maxLength: input.lines.length })
        .map((lines) => [input, { ...input, lines }] as const),
    );
    fc.assert(
      fc.property(withShuffledLines, ([input, shuffled]) => {
        const a = computeInvoice(invoiceModelSchema.parse(input));
        const b = computeInvoice(invoiceModelSchema.parse(shuffled));
        expect(b.vatBreakdown).toEqual(a.vatBreakdown);
        expect(b.totals).toEqual(a.totals);
        const order = a.vatBreakdown.map((r) => VAT_CATEGORIES.indexOf(r.category));
        expect(order).toEqual([...order].sort((x, y) => x - y));
      }),
      { numRuns: 100 },
    );
  });
});
