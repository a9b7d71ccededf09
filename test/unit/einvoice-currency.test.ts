import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amountDigits, currencyMinorDigits, roundHalfAway } from "#shared/einvoice/currency.ts";
import { add, decimalPlaces, formatDecimal, round, toDecimal, toNumber } from "#shared/einvoice/decimal.ts";

describe("currency minor units", () => {
  it("knows the usual currencies and takes 2 for one it does not know", () => {
    const digits = ["EUR", "USD", "GBP", "CHF", "JPY", "KRW", "BHD", "KWD", "CLF", "XYZ", "constructor"].map(
      currencyMinorDigits,
    );
    expect(digits).toEqual([2, 2, 2, 2, 0, 0, 3, 3, 4, 2, 2]);
    expect(currencyMinorDigits(undefined)).toBe(2);
  });

  it("rounds amounts to at most two digits, fewer where the currency has fewer", () => {
    expect([amountDigits("EUR"), amountDigits("JPY"), amountDigits("BHD"), amountDigits(undefined)]).toEqual([
      2, 0, 2, 2,
    ]);
  });
});

describe("exact rounding, half away from zero", () => {
  it.each([
    [1.005, 2, 1.01],
    [1.015, 2, 1.02],
    [2.345, 2, 2.35],
    [-2.345, 2, -2.35],
    [1.15, 1, 1.2],
    [8.345, 2, 8.35],
    [2.5, 0, 3],
    [-2.5, 0, -3],
    [0.5, 0, 1],
    [-0.004, 2, 0],
    [1e-7, 2, 0],
    [123.4, 2, 123.4],
    ["0.125", 2, 0.13],
    ["-0.125", 2, -0.13],
  ] as const)("%s to %s digits is %s", (value, digits, expected) => {
    expect(roundHalfAway(value, digits)).toBe(expected);
  });

  it("adds without float drift: 0.1 + 0.2 is 0.3", () => {
    expect(toNumber(add(toDecimal(0.1), toDecimal(0.2)))).toBe(0.3);
  });

  it("reads exponents and writes plain decimals", () => {
    expect(formatDecimal(toDecimal(1e-7))).toBe("0.0000001");
    expect(formatDecimal(toDecimal(1.5e21))).toBe("1500000000000000000000");
    expect(formatDecimal(toDecimal("-0.050"))).toBe("-0.050");
    expect(decimalPlaces(toDecimal("12.50"))).toBe(1);
    expect(decimalPlaces(toDecimal(3))).toBe(0);
    expect(() => toDecimal(Number.NaN)).toThrow(RangeError);
  });
});

/** A decimal as an integer of units and a scale, and its text. */
const anyDecimal = fc
  .record({ units: fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), scale: fc.integer({ min: 0, max: 10 }) })
  .map(({ units, scale }) => ({ units, scale, text: formatDecimal({ units, scale }) }));

describe("exact rounding, properties", () => {
  it("is within half a unit of the last digit, ties away from zero", () => {
    fc.assert(
      fc.property(anyDecimal, fc.integer({ min: 0, max: 6 }), (value, digits) => {
        const rounded = round(toDecimal(value.text), digits);
        expect(rounded.scale).toBe(digits);
        // Compare at the finer scale: |value − rounded| ≤ ½ unit of the last digit.
        const scale = Math.max(value.scale, digits + 1);
        const v = value.units * 10n ** BigInt(scale - value.scale);
        const r = rounded.units * 10n ** BigInt(scale - digits);
        const half = 5n * 10n ** BigInt(scale - digits - 1);
        const distance = v > r ? v - r : r - v;
        expect(distance <= half).toBe(true);
        if (distance === half) expect(r < 0n ? -r > -v : r > v).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("sums of cents are exact and rounding them changes nothing", () => {
    const cents = fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 });
    fc.assert(
      fc.property(cents, cents, (a, b) => {
        const sum = add(toDecimal(a / 100), toDecimal(b / 100));
        expect(toNumber(sum)).toBe((a + b) / 100);
        expect(roundHalfAway(sum, 2)).toBe((a + b) / 100);
      }),
      { numRuns: 1000 },
    );
  });

  it("reads any finite number as the decimal it prints as, and gives it back unchanged", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const exact = toDecimal(x);
        expect(Number(formatDecimal(exact))).toBe(x === 0 ? 0 : x);
        expect(toNumber(exact)).toBe(x === 0 ? 0 : x);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(anyDecimal, (value) => {
        expect(toNumber({ units: value.units, scale: value.scale })).toBe(Number(value.text));
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees with rounding the printed decimal by hand", () => {
    fc.assert(
      fc.property(fc.integer({ min: -99_999_999, max: 99_999_999 }), (thousandths) => {
        // x.yz5 rounds away from zero at two digits; anything else to the nearer cent.
        const value = thousandths / 1000;
        const last = Math.abs(thousandths) % 10;
        const towardZero = Math.trunc(thousandths / 10);
        const expected = (last >= 5 ? towardZero + Math.sign(thousandths) : towardZero) / 100;
        expect(roundHalfAway(value, 2)).toBe(expected === 0 ? 0 : expected);
      }),
      { numRuns: 1000 },
    );
  });
});
