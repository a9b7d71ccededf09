import { Liquid } from "liquidjs";
import { describe, expect, it } from "vitest";
import { registerPlatenFilters } from "#shared/render/filters.ts";
import { corporateCheckDigit, registrationNumber, taxByRate } from "#shared/render/invoice-filters.ts";

const line = (quantity: number, price: number, rate?: number) => ({
  quantity,
  price,
  ...(rate !== undefined && { rate }),
});

describe("tax_by_rate: the tax is computed once per rate on the rate's total", () => {
  it.each([
    // [lines, expected per rate [rate, base, tax], subtotal, tax, total]
    ["one 10 % line", [line(1, 50_000, 10)], [[10, 50_000, 5_000]], 50_000, 5_000, 55_000],
    ["only the reduced rate", [line(3, 398, 8)], [[8, 1_194, 95]], 1_194, 95, 1_289], // 95.52 → 95
    [
      "both rates: rounded per rate, not per line",
      // per line: 33×0.1=3.3→3 three times = 9; per rate: 99×0.1 = 9.9 → 9 (the same here) …
      [line(1, 33, 10), line(1, 33, 10), line(1, 33, 10), line(1, 115, 8), line(1, 115, 8)],
      [
        [10, 99, 9],
        [8, 230, 18], // per line 9.2→9 twice = 18; per rate 18.4 → 18
      ],
      329,
      27,
      356,
    ],
    [
      "rounding per line would differ",
      // per line: 19×8 % = 1.52 → 1, five lines = 5; per rate: 95 × 8 % = 7.6 → 7
      [line(1, 19, 8), line(1, 19, 8), line(1, 19, 8), line(1, 19, 8), line(1, 19, 8)],
      [[8, 95, 7]],
      95,
      7,
      102,
    ],
    ["a line without a rate is 10 %", [line(2, 1_000)], [[10, 2_000, 200]], 2_000, 200, 2_200],
    [
      "0 % (非課税) has no tax",
      [line(1, 10_000, 0), line(1, 100, 10)],
      [
        [10, 100, 10],
        [0, 10_000, 0],
      ],
      10_100,
      10,
      10_110,
    ],
    [
      "large amounts stay exact",
      [line(1, 123_456_789_012, 10)],
      [[10, 123_456_789_012, 12_345_678_901]],
      123_456_789_012,
      12_345_678_901,
      135_802_467_913,
    ],
    ["no lines", [], [], 0, 0, 0],
  ])("%s", (_name, lines, rates, subtotal, tax, total) => {
    const result = taxByRate(lines);
    expect(result.rates.map((r) => [r.rate, r.base, r.tax])).toEqual(rates);
    expect([result.subtotal, result.tax, result.total]).toEqual([subtotal, tax, total]);
    expect(result.rates.every((r) => r.total === r.base + r.tax && r.reduced === (r.rate === 8))).toBe(true);
  });

  it("line amounts are quantity × price rounded half up to the yen (0.5 yen edge)", () => {
    expect(taxByRate([line(1.5, 333, 10)]).rates[0]!.base).toBe(500); // 499.5 → 500
    expect(taxByRate([line(3, 0.1, 10)]).rates[0]!.base).toBe(0); // 0.30000000000000004 → 0
    expect(taxByRate([line(0.5, 1, 10)]).rates[0]!.base).toBe(1); // 0.5 → 1
    expect(taxByRate([line(1, 1.005, 10)]).rates[0]!.base).toBe(1);
  });

  it.each([
    ["floor", 5, 0], // 0.5 → 0 (切り捨て)
    ["round", 5, 1], // 0.5 → 1 (四捨五入)
    ["ceil", 1, 1], // 0.1 → 1 (切り上げ)
  ] as const)("tax rounding %s: the rate's tax rounded once", (rounding, base, tax) => {
    expect(taxByRate([line(1, base, 10)], { rounding }).rates[0]!.tax).toBe(tax);
  });

  it("an 8 % total of 1,250 is 100 exactly (no float drift) and 1,256 gives 100.48 → 100", () => {
    expect(taxByRate([line(1, 1_250, 8)]).tax).toBe(100);
    expect(taxByRate([line(1, 1_256, 8)]).tax).toBe(100);
    expect(taxByRate([line(1, 1_256, 8)], { rounding: "round" }).tax).toBe(100);
    expect(taxByRate([line(1, 1_256, 8)], { rounding: "ceil" }).tax).toBe(101);
  });

  it("as a Liquid filter with the design's own field names", () => {
    const engine = registerPlatenFilters(new Liquid());
    const items = [
      { 数量: 1, 単価: 50_000, 税率: 10 },
      { 数量: 3, 単価: 398, 税率: 8 },
    ];
    const out = engine.parseAndRenderSync(
      '{% assign t = 明細 | tax_by_rate: quantity: "数量", price: "単価", rate: "税率" %}' +
        "{% for r in t.rates %}{{ r.rate }}:{{ r.base }}:{{ r.tax }}:{{ r.reduced }};{% endfor %}{{ t.total }}",
      { 明細: items },
    );
    expect(out).toBe("10:50000:5000:false;8:1194:95:true;56289");
    expect(() => engine.parseAndRenderSync('{{ x | tax_by_rate: rounding: "up" }}', { x: [] })).toThrow(
      /rounding must be floor, round or ceil/,
    );
  });
});

describe("registration_number: T + a corporate number with its check digit", () => {
  it("computes the corporate-number check digit (the National Tax Agency's own 7000012050002)", () => {
    expect(corporateCheckDigit("000012050002")).toBe(7);
  });

  it.each([
    ["T7000012050002", "T7000012050002"],
    ["t7000012050002", "T7000012050002"],
    ["Ｔ７０００−０１２０−５０００２", "T7000012050002"], // full-width, with dashes
    ["T 7000 0120 50002", "T7000012050002"],
    ["", ""],
  ])("accepts %j as %j", (input, output) => {
    expect(registrationNumber(input)).toBe(output);
  });

  it.each([
    ["T1000012050002", /wrong check digit/],
    ["7000012050002", /must be T followed by 13 digits/],
    ["T700001205000", /must be T followed by 13 digits/],
    ["T70000120500021", /must be T followed by 13 digits/],
  ])("refuses %j, naming it", (input, message) => {
    expect(() => registrationNumber(input)).toThrow(message);
    expect(() => registrationNumber(input)).toThrow(input);
  });
});
