import { describe, expect, it } from "vitest";
import { checkBundle, strictBundle } from "#shared/authoring/bundle-rules.ts";
import type { RecordSpec } from "#shared/designs/bundle-schema.ts";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { permanentFileFailure } from "#shared/generation/requests/document-failure.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import {
  counterpartySearchForm,
  evaluateRecordFields,
  minorUnits,
  recordDate,
  recordExpressionProblem,
} from "#shared/records/index.ts";

const spec: RecordSpec = {
  type: "invoice",
  date: "発行日",
  amount: "合計",
  counterparty: "請求先",
  number: "請求番号",
};

/** The catalogue error a bad value throws: its code and the field it names. */
function refusal(run: () => unknown): { code: string; field?: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof PlatenError)) throw error;
    return { code: error.code, field: error.details[0]?.field };
  }
  throw new Error("expected a refusal");
}

describe("record dates", () => {
  it.each([
    ["2026-11-21", "2026-11-21"],
    [" 2024-02-29 ", "2024-02-29"],
    ["２０２６－１１－２１", "2026-11-21"],
  ])("%j is the day %s", (value, day) => expect(recordDate(value)).toBe(day));

  it.each([["2026-02-30"], ["2025-02-29"], ["2026-13-01"], ["2026/11/21"], ["20261121"], [20261121], [null], [""]])(
    "%j is refused naming record.date",
    (value) =>
      expect(refusal(() => recordDate(value))).toEqual({ code: "RECORD_FIELDS_INVALID", field: "record.date" }),
  );
});

describe("a refused record field's message", () => {
  const thrown = () => {
    try {
      recordDate("2026-02-30");
    } catch (error) {
      return error as PlatenError;
    }
    throw new Error("expected a refusal");
  };

  it("says why in the answer's language, the headline as the detail", () => {
    const ja = buildErrorBody(thrown(), "ja", "https://platen.example");
    expect(ja.message).toBe(
      '文書の記録項目 record.date が正しくありません: YYYY-MM-DD 形式の実在する日付が必要です（値: "2026-02-30"）',
    );
    expect(ja.details[0]?.message).toBe('YYYY-MM-DD 形式の実在する日付が必要です（値: "2026-02-30"）');
    const en = buildErrorBody(thrown(), "en", "https://platen.example");
    expect(en.message).toBe(
      `The document's record field record.date is not valid: expected a date as YYYY-MM-DD, got "2026-02-30"`,
    );
  });

  it("fails an async file with the English message", () => {
    expect(permanentFileFailure(thrown())).toEqual({
      errorCode: "RECORD_FIELDS_INVALID",
      errorMessage: `The document's record field record.date is not valid: expected a date as YYYY-MM-DD, got "2026-02-30"`,
    });
  });
});

describe("record amounts in minor units", () => {
  it.each([
    [55000, "JPY", 55000],
    ["55,000", "JPY", 55000],
    ["５５０００", "JPY", 55000],
    ["55000.00", "JPY", 55000],
    [1234.5, "USD", 123450],
    ["0.1", "EUR", 10],
    [-300, "JPY", -300],
    ["1.005", "BHD", 1005],
    [0, "JPY", 0],
  ])("%j %s is %i", (value, currency, units) => expect(minorUnits(value, currency)).toBe(units));

  it.each([
    [100.5, "JPY"],
    ["1.001", "USD"],
    ["abc", "JPY"],
    ["", "JPY"],
    [Number.NaN, "JPY"],
    [Number.POSITIVE_INFINITY, "JPY"],
    [true, "JPY"],
    ["1e3", "JPY"],
    ["99999999999999999", "JPY"],
  ])("%j %s is refused naming record.amount", (value, currency) =>
    expect(refusal(() => minorUnits(value, currency))).toEqual({
      code: "RECORD_FIELDS_INVALID",
      field: "record.amount",
    }),
  );
});

describe("the counterparty's search form", () => {
  it.each([
    ["株式会社　サンプル", "株式会社サンプル"],
    ["ＡＢＣ Trading", "abctrading"],
    ["ｶﾌﾞｼｷｶﾞｲｼｬ", "カブシキガイシャ"],
    ["  Acme\tCorp ", "acmecorp"],
  ])("%j is searched as %j", (text, form) => expect(counterpartySearchForm(text)).toBe(form));
});

describe("evaluating a design's record", () => {
  const params = { 発行日: "2026-11-21", 合計: 55000, 請求先: "株式会社　サンプル", 請求番号: "INV-0042" };

  it("evaluates every field against the params, JPY by default", () => {
    expect(evaluateRecordFields(spec, { params })).toEqual({
      type: "invoice",
      date: "2026-11-21",
      amount: 55000,
      currency: "JPY",
      counterparty: "株式会社 サンプル",
      counterpartySearch: "株式会社サンプル",
      number: "INV-0042",
    });
  });

  it("reads the computed e-invoice, with filters, and a currency of its own", () => {
    const fields = evaluateRecordFields(
      {
        type: "invoice",
        date: "einvoice.issueDate",
        amount: "einvoice.totals.payable",
        currency: "einvoice.currency | downcase",
        counterparty: "einvoice.buyer.name",
      },
      {
        params: {},
        einvoice: { issueDate: "2026-01-05", totals: { payable: "99.90" }, currency: "eur", buyer: { name: "Acme" } },
      },
    );
    expect(fields).toMatchObject({ date: "2026-01-05", amount: 9990, currency: "EUR", counterparty: "Acme" });
    expect(fields.registrationNumber).toBeUndefined();
  });

  it("keeps a valid registration number normalised", () => {
    // T + 13 digits whose first is the check digit of the other twelve (国税庁's example number 8700110005901).
    const fields = evaluateRecordFields(
      { ...spec, registrationNumber: "登録番号" },
      { params: { ...params, 登録番号: "T8700110005901" } },
    );
    expect(fields.registrationNumber).toBe("T8700110005901");
  });

  it.each([
    [{ ...params, 発行日: "2026-02-30" }, "record.date"],
    [{ ...params, 合計: "五万" }, "record.amount"],
    [{ ...params, 請求先: "  " }, "record.counterparty"],
    [{ ...params, 請求先: { name: "x" } }, "record.counterparty"],
    [{ ...params, 請求番号: "x".repeat(201) }, "record.number"],
  ])("refuses %j naming %s", (p, field) =>
    expect(refusal(() => evaluateRecordFields(spec, { params: p }))).toEqual({ code: "RECORD_FIELDS_INVALID", field }),
  );

  it("refuses a bad currency and a bad registration number, naming each", () => {
    expect(refusal(() => evaluateRecordFields({ ...spec, currency: "'yen!'" }, { params }))).toMatchObject({
      field: "record.currency",
    });
    expect(
      refusal(() => evaluateRecordFields({ ...spec, registrationNumber: "'T1234567890123'" }, { params })),
    ).toMatchObject({ field: "record.registrationNumber" });
  });
});

describe("design.json record", () => {
  const manifest = { label: "請求書", parameters: [] };

  it("is parsed with a type of the enum and expressions", () => {
    expect(designManifestSchema.parse({ ...manifest, record: spec }).record).toEqual(spec);
    expect(designManifestSchema.safeParse({ ...manifest, record: { ...spec, type: "memo" } }).success).toBe(false);
    expect(designManifestSchema.safeParse({ ...manifest, record: { ...spec, date: "" } }).success).toBe(false);
    expect(designManifestSchema.safeParse({ ...manifest, record: { ...spec, extra: "x" } }).success).toBe(false);
  });

  it("expressions are checked as Liquid", () => {
    expect(recordExpressionProblem("発行日 | date: '%Y-%m-%d'")).toBeUndefined();
    expect(recordExpressionProblem("合計 | nofilter")).toMatch(/undefined filter/);
    expect(recordExpressionProblem("{{ 合計 }}")).toMatch(/without/);
    expect(recordExpressionProblem("a.b]")).toBeDefined();
  });
});

describe("publishing a design with record", () => {
  const raw = (record: unknown) => ({
    manifest: { label: "請求書", parameters: [{ name: "合計", type: "number", label: "合計" }], record },
    template: "<p>{{ 合計 }}</p>",
    css: "",
    assets: {},
  });

  it("refuses an expression that does not parse, naming record.<field>", () => {
    const { problems } = checkBundle(raw({ ...spec, amount: "合計 | nofilter", date: "{{ 発行日 }}" }));
    expect(problems.map((p) => [p.file, p.field])).toEqual([
      ["design.json", "record.date"],
      ["design.json", "record.amount"],
    ]);
    expect(() => strictBundle(raw({ ...spec, amount: "合計 | nofilter" }))).toThrow(
      /DESIGN_BUNDLE_INVALID|invalid design bundle/,
    );
  });

  it("publishes expressions that parse", () => {
    expect(checkBundle(raw(spec)).problems).toEqual([]);
  });
});
