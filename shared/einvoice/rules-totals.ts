/**
 * The sums (BR-CO-10…BR-CO-16) and decimals (BR-DEC-*) of the amounts a mapping gives. Platen
 * computes every total itself; totals a mapping gives are compared with Platen's, never used.
 */
import type { Bilingual } from "#shared/i18n/texts.ts";
import { compare, decimalPlaces, formatDecimal, round, toDecimal } from "./decimal.ts";
import type { InvoiceTotals } from "./model.ts";
import type { EinvoiceRule } from "./rules.ts";

type TotalName = keyof InvoiceTotals;

/** A given total against Platen's: `{given}` and `{expected}` fill the message. */
function sumRule(id: string, total: TotalName, message: Bilingual): EinvoiceRule {
  const path = `totals.${total}`;
  return {
    id,
    path,
    message,
    check: ({ model, computed }) => {
      const given = model.totals?.[total];
      if (given === undefined) return [];
      const expected = toDecimal(computed.totals[total]);
      if (compare(toDecimal(given), expected) === 0) return [];
      const vars = {
        given: formatDecimal(toDecimal(given)),
        expected: formatDecimal(round(expected, computed.minorDigits)),
      };
      return [{ path, vars }];
    },
  };
}

/** BR-CO-10…16, in the order of the totals (BG-22). */
export const sumRules: readonly EinvoiceRule[] = [
  sumRule("BR-CO-10", "lineTotal", {
    en: "The given sum of line net amounts (BT-106), {given}, differs from the sum of the lines, {expected}.",
    ja: "指定された明細正味金額の合計 (BT-106) {given} が、明細の合計 {expected} と一致しません。",
  }),
  sumRule("BR-CO-11", "allowanceTotal", {
    en: "The given sum of allowances (BT-107), {given}, differs from the sum of the document level allowances, {expected}.",
    ja: "指定された控除の合計 (BT-107) {given} が、文書レベルの控除額の合計 {expected} と一致しません。",
  }),
  sumRule("BR-CO-12", "chargeTotal", {
    en: "The given sum of charges (BT-108), {given}, differs from the sum of the document level charges, {expected}.",
    ja: "指定された追加料金の合計 (BT-108) {given} が、文書レベルの追加料金の合計 {expected} と一致しません。",
  }),
  sumRule("BR-CO-13", "taxBasis", {
    en: "The given total without VAT (BT-109), {given}, differs from lines − allowances + charges, {expected}.",
    ja: "指定された税抜合計 (BT-109) {given} が、明細合計 − 控除 + 追加料金 = {expected} と一致しません。",
  }),
  sumRule("BR-CO-14", "taxTotal", {
    en: "The given total VAT (BT-110), {given}, differs from the sum of the VAT breakdown, {expected}.",
    ja: "指定された VAT 合計 (BT-110) {given} が、VAT 内訳の税額の合計 {expected} と一致しません。",
  }),
  sumRule("BR-CO-15", "grandTotal", {
    en: "The given total with VAT (BT-112), {given}, differs from the total without VAT plus VAT, {expected}.",
    ja: "指定された税込合計 (BT-112) {given} が、税抜合計 + VAT 合計 = {expected} と一致しません。",
  }),
  sumRule("BR-CO-16", "duePayable", {
    en: "The given amount due (BT-115), {given}, differs from the total with VAT, {expected} (the model has no paid amount).",
    ja: "指定された支払金額 (BT-115) {given} が、税込合計 {expected} と一致しません（モデルに支払済金額はありません）。",
  }),
];

/**
 * At most two decimals in an amount, or fewer where the currency has fewer (none in JPY):
 * `{digits}` and `{currency}` fill the message.
 */
function decimalsRule(id: string, path: string, term: Bilingual, amounts: EinvoiceRule["check"]): EinvoiceRule {
  return {
    id,
    path,
    message: {
      en: `In {currency}, ${term.en} has at most {digits} decimals.`,
      ja: `{currency} では、${term.ja}の小数部は {digits} 桁までです。`,
    },
    *check(input) {
      const { minorDigits: digits } = input.computed;
      const currency = input.model.currency ?? "EUR";
      for (const breach of amounts(input)) yield { ...breach, vars: { digits, currency } };
    },
  };
}

/** The paths in `list` whose amount has more decimals than the invoice's amounts may have. */
function* tooPrecise(
  values: readonly (number | undefined)[],
  pathOf: (i: number) => string,
  digits: number,
): Iterable<{ path: string }> {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value !== undefined && decimalPlaces(toDecimal(value)) > digits) yield { path: pathOf(i) };
  }
}

const givenTotal = (id: string, total: TotalName, term: Bilingual) =>
  decimalsRule(id, `totals.${total}`, term, ({ model, computed }) =>
    tooPrecise([model.totals?.[total]], () => `totals.${total}`, computed.minorDigits),
  );

/** BR-DEC-01, -05 (allowance and charge amounts) and the given totals' BR-DEC rules. */
export const decimalRules: readonly EinvoiceRule[] = [
  decimalsRule(
    "BR-DEC-01",
    "allowances[].amount",
    { en: "a document level allowance amount (BT-92)", ja: "文書レベルの控除額 (BT-92) " },
    ({ model, computed }) =>
      tooPrecise(
        (model.allowances ?? []).map((a) => a.amount),
        (i) => `allowances.${i}.amount`,
        computed.minorDigits,
      ),
  ),
  decimalsRule(
    "BR-DEC-05",
    "charges[].amount",
    { en: "a document level charge amount (BT-99)", ja: "文書レベルの追加料金額 (BT-99) " },
    ({ model, computed }) =>
      tooPrecise(
        (model.charges ?? []).map((c) => c.amount),
        (i) => `charges.${i}.amount`,
        computed.minorDigits,
      ),
  ),
  givenTotal("BR-DEC-09", "lineTotal", {
    en: "the sum of line net amounts (BT-106)",
    ja: "明細正味金額の合計 (BT-106) ",
  }),
  givenTotal("BR-DEC-10", "allowanceTotal", { en: "the sum of allowances (BT-107)", ja: "控除の合計 (BT-107) " }),
  givenTotal("BR-DEC-11", "chargeTotal", { en: "the sum of charges (BT-108)", ja: "追加料金の合計 (BT-108) " }),
  givenTotal("BR-DEC-12", "taxBasis", { en: "the total without VAT (BT-109)", ja: "税抜合計 (BT-109) " }),
  givenTotal("BR-DEC-13", "taxTotal", { en: "the total VAT (BT-110)", ja: "VAT 合計 (BT-110) " }),
  givenTotal("BR-DEC-14", "grandTotal", { en: "the total with VAT (BT-112)", ja: "税込合計 (BT-112) " }),
  givenTotal("BR-DEC-18", "duePayable", { en: "the amount due (BT-115)", ja: "支払金額 (BT-115) " }),
];
