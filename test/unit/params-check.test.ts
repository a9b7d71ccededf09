import { describe, expect, it } from "vitest";
import type { ParameterSpec } from "#shared/designs/bundle-schema.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { checkParams } from "#shared/generation/requests/index.ts";

/**
 * Params against a design's parameter schema (OpenAPI generateSyncSingle, getDesignParameters): what the
 * template sees and what is refused.
 */

const p = (name: string, type: ParameterSpec["type"], over: Partial<ParameterSpec> = {}): ParameterSpec => ({
  name,
  type,
  label: name,
  ...over,
});

const schema: ParameterSpec[] = [
  p("顧客名", "text"),
  p("合計", "number"),
  p("発行日", "date"),
  p("税込", "boolean", { default: true }),
  p("備考あり", "boolean"),
  p("宛先", "collection", { spec: [p("郵便番号", "text"), p("国内", "boolean", { default: false })] }),
  p("明細", "array", { spec: [p("品名", "text"), p("数量", "number")] }),
];

describe("checkParams", () => {
  it("keeps schema keys only, drops unknown keys, and checks nested collections and array rows", () => {
    const params = {
      顧客名: "ACME",
      合計: 1200.5,
      発行日: "2026-01-31",
      宛先: { 郵便番号: "100-0001", 余分: 1 },
      明細: [{ 品名: "紙", 数量: 3, x: 0 }],
      顧客ラベル: "x",
    };
    expect(checkParams(schema, params, "params")).toEqual({
      values: {
        顧客名: "ACME",
        合計: 1200.5,
        発行日: "2026-01-31",
        税込: true,
        宛先: { 郵便番号: "100-0001", 国内: false },
        明細: [{ 品名: "紙", 数量: 3 }],
      },
      mismatches: [],
    });
  });

  it("treats null like a missing key: absent from the values, a boolean at its default", () => {
    expect(checkParams(schema, { 顧客名: null, 税込: null, 備考あり: null }, "params")).toEqual({
      values: { 税込: true },
      mismatches: [],
    });
    expect(checkParams(schema, { 税込: false }, "params").values).toEqual({ 税込: false });
  });

  it("reports every mismatch with its path and expected type, never echoing the value", () => {
    const params = { 顧客名: 1, 合計: "12", 発行日: 20260131, 税込: "yes", 宛先: [], 明細: { 品名: "紙" } };
    const { mismatches } = checkParams(schema, params, "contents.2.params");
    expect(mismatches.map((m) => [m.field, m.expected, m.code, detailMessage(m, "en")])).toEqual([
      ["contents.2.params.顧客名", "string", "PARAMS_TYPE_MISMATCH", "expected string, got number"],
      ["contents.2.params.合計", "number", "PARAMS_TYPE_MISMATCH", "expected number, got string"],
      [
        "contents.2.params.発行日",
        "date",
        "PARAMS_TYPE_MISMATCH",
        expect.stringMatching(/^expected date as YYYY-MM-DD .* got number$/),
      ],
      ["contents.2.params.税込", "boolean", "PARAMS_TYPE_MISMATCH", "expected boolean, got string"],
      ["contents.2.params.宛先", "object", "PARAMS_TYPE_MISMATCH", "expected object, got array"],
      ["contents.2.params.明細", "array", "PARAMS_TYPE_MISMATCH", "expected array, got object"],
    ]);
    for (const m of mismatches) expect(detailMessage(m, "ja"), m.field).not.toContain("12");
  });

  it("names the row and key inside arrays, and a row that is not an object", () => {
    const { mismatches, values } = checkParams(
      schema,
      { 明細: [{ 数量: 1 }, "row", { 品名: 2, 数量: "3" }] },
      "params",
    );
    expect(mismatches.map((m) => [m.field, m.expected])).toEqual([
      ["params.明細.1", "object"],
      ["params.明細.2.品名", "string"],
      ["params.明細.2.数量", "number"],
    ]);
    expect(values.明細).toEqual([{ 数量: 1 }, {}, {}]);
  });

  it("accepts ISO 8601 dates with an optional time and offset, refuses impossible ones without repeating them", () => {
    const dates = (value: string) => checkParams([p("d", "date")], { d: value }, "params").mismatches;
    for (const ok of [
      "2024-02-29",
      "2026-11-21T09:30",
      "2026-11-21T09:30:00Z",
      "2026-11-21 09:30:00.123+09:00",
      "2026-11-21T23:59:59-0530",
    ])
      expect(dates(ok), ok).toEqual([]);
    for (const bad of [
      "2025-02-29",
      "2026-13-01",
      "2026-11-31",
      "2026-11-21T24:00",
      "2026-11-21T09:60",
      "2026-11-21T09:30+25:00",
      "21/11/2026",
      "2026-1-5",
      "",
    ]) {
      const [m] = dates(bad);
      expect(m?.field, bad).toBe("params.d");
      expect(m && detailMessage(m, "en")).toMatch(/got a string that is not such a date$/);
      if (bad) expect(`${m && detailMessage(m, "en")} ${m && detailMessage(m, "ja")}`).not.toContain(bad);
    }
  });

  it("refuses non-finite numbers (they cannot be rendered)", () => {
    expect(
      checkParams([p("n", "number")], { n: Number.POSITIVE_INFINITY }, "params").mismatches.map((m) => m.field),
    ).toEqual(["params.n"]);
  });
});
