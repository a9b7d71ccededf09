import type { Liquid } from "liquidjs";
import type { RecordSpec } from "#shared/designs/bundle-schema.ts";
import { currencyMinorDigits } from "#shared/einvoice/currency.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { registrationNumber } from "#shared/render/invoice-filters.ts";
import { createTemplateEngine } from "#shared/render/template.ts";

/** The fields of one record as evaluated from a file's params (README.md#what-a-record-holds). */
export interface RecordFields {
  type: RecordSpec["type"];
  /** 取引年月日, `YYYY-MM-DD`. */
  date: string;
  /** 取引金額 in minor units of `currency` (yen for JPY, cents for USD). */
  amount: number;
  /** ISO 4217, upper case; JPY unless the design says otherwise. */
  currency: string;
  /** 取引先 as the document names it. */
  counterparty: string;
  /** The counterparty's search form (`counterpartySearchForm`). */
  counterpartySearch: string;
  number?: string;
  /** A qualified invoice issuer's registration number, `T` + 13 digits. */
  registrationNumber?: string;
}

/** What the expressions see: the params at the top level, as the template sees them, and `einvoice`. */
export interface RecordScope {
  params: Record<string, unknown>;
  /** The computed e-invoice model of a design with `einvoice`. */
  einvoice?: unknown;
}

export const DEFAULT_RECORD_CURRENCY = "JPY";

/** What a refused record field says, in both languages (values quoted as the params gave them). */
const recordText = {
  notEvaluated: { en: "the expression does not evaluate: {reason}", ja: "式を評価できません: {reason}" },
  date: {
    en: "expected a date as YYYY-MM-DD, got {value}",
    ja: "YYYY-MM-DD 形式の実在する日付が必要です（値: {value}）",
  },
  amount: { en: "expected a number, got {value}", ja: "数値が必要です（値: {value}）" },
  decimals: {
    en: "{currency} has {digits} decimal digits, got {value}",
    ja: "{currency} の小数は {digits} 桁までです（値: {value}）",
  },
  tooLarge: { en: "the amount is too large: {value}", ja: "金額が大きすぎます（値: {value}）" },
  currency: { en: "expected an ISO 4217 code, got {value}", ja: "ISO 4217 の通貨コードが必要です（値: {value}）" },
  empty: { en: "the value is empty", ja: "値が空です" },
  text: { en: "expected text, got {value}", ja: "文字列が必要です（値: {value}）" },
  tooLong: { en: "at most {max} characters", ja: "{max} 文字以内にしてください" },
  registration: { en: "{reason}", ja: "登録番号が正しくありません: {reason}" },
} satisfies Record<string, Bilingual>;
const MAX_TEXT = 200;

/** Made on first use: only designs with `record` pay for it. */
let engine: Liquid | undefined;
const recordEngine = (): Liquid => {
  engine ??= createTemplateEngine("json");
  return engine;
};

/**
 * The Liquid problem of one expression (unknown filter, bad syntax), or undefined when it parses as the
 * renderer will evaluate it. Publishing calls it for each field (shared/authoring).
 */
export function recordExpressionProblem(expression: string): string | undefined {
  if (/\{\{|\}\}|\{%|%\}/.test(expression)) return "an expression without {{ }} or {% %}";
  try {
    recordEngine().parse(`{{ ${expression} }}`);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A record field that does not evaluate: 422 RECORD_FIELDS_INVALID naming it. */
export function recordFieldsInvalid(field: string, reason: Bilingual, cause?: unknown): PlatenError {
  return new PlatenError("RECORD_FIELDS_INVALID", {
    vars: { field: `record.${field}`, reason },
    details: [{ field: `record.${field}`, text: reason }],
    ...(cause !== undefined && { cause }),
  });
}

/**
 * Evaluates a design's `record` for one file (the first step of a document's way out: before any
 * browser, nothing billed on a refusal).
 * @throws PlatenError RECORD_FIELDS_INVALID naming the first field that does not evaluate to a valid value
 */
export function evaluateRecordFields(spec: RecordSpec, scope: RecordScope): RecordFields {
  const context = { ...scope.params, ...(scope.einvoice !== undefined && { einvoice: scope.einvoice }) };
  const value = (field: keyof RecordSpec): unknown => {
    const expression = spec[field];
    if (expression === undefined || field === "type") return undefined;
    try {
      return recordEngine().evalValueSync(expression, context);
    } catch (cause) {
      throw recordFieldsInvalid(field, fillBoth(recordText.notEvaluated, { reason: (cause as Error).message }), cause);
    }
  };
  const currency = currencyOf(value("currency"));
  const counterparty = requiredText("counterparty", value("counterparty"));
  const number = optionalText("number", value("number"));
  const registration = registrationOf(value("registrationNumber"));
  return {
    type: spec.type,
    date: recordDate(value("date")),
    amount: minorUnits(value("amount"), currency),
    currency,
    counterparty,
    counterpartySearch: counterpartySearchForm(counterparty),
    ...(number !== undefined && { number }),
    ...(registration !== undefined && { registrationNumber: registration }),
  };
}

/**
 * The form a counterparty is searched by: NFKC (full-width letters and digits to ASCII, half-width kana to
 * full-width), case folded, every space removed, so `株式会社　サンプル` and `株式会社サンプル` match, and `ＡＢＣ` `abc`.
 */
export function counterpartySearchForm(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/gu, "");
}

const isAbsent = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

/** `YYYY-MM-DD` of a real day (2026-02-30 is refused). */
export function recordDate(v: unknown): string {
  const text = typeof v === "string" ? v.trim().normalize("NFKC") : "";
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const day = match && new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (!match || !day || day.toISOString().slice(0, 10) !== text)
    throw recordFieldsInvalid("date", fillBoth(recordText.date, { value: shown(v) }));
  return text;
}

/**
 * An amount in minor units of its currency, exactly (a decimal string, never a float product): `55000`
 * JPY → 55000, `"1,234.5"` USD → 123450. More decimals than the currency has, or no finite number, is refused.
 */
export function minorUnits(v: unknown, currency: string): number {
  const digits = currencyMinorDigits(currency);
  const text = typeof v === "number" ? (Number.isFinite(v) ? decimalText(v) : "") : typeof v === "string" ? v : "";
  const normal = text.normalize("NFKC").trim().replace(/,/g, "");
  const match = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(normal);
  if (!match) throw recordFieldsInvalid("amount", fillBoth(recordText.amount, { value: shown(v) }));
  const [, sign, whole, fraction = ""] = match;
  const significant = fraction.replace(/0+$/, "");
  if (significant.length > digits)
    throw recordFieldsInvalid("amount", fillBoth(recordText.decimals, { currency, digits, value: shown(v) }));
  const units = BigInt(whole! + significant.padEnd(digits, "0")) * (sign === "-" ? -1n : 1n);
  if (units > BigInt(Number.MAX_SAFE_INTEGER) || units < -BigInt(Number.MAX_SAFE_INTEGER))
    throw recordFieldsInvalid("amount", fillBoth(recordText.tooLarge, { value: shown(v) }));
  return Number(units);
}

/** A number as plain decimal text (`1e21` and `1e-7` spelt out), so minorUnits reads it exactly. */
function decimalText(n: number): string {
  const text = String(n);
  return /e/i.test(text) ? n.toFixed(20).replace(/\.?0+$/, "") : text;
}

function currencyOf(v: unknown): string {
  if (isAbsent(v)) return DEFAULT_RECORD_CURRENCY;
  const code = typeof v === "string" ? v.trim().toUpperCase() : "";
  if (!/^[A-Z]{3}$/.test(code))
    throw recordFieldsInvalid("currency", fillBoth(recordText.currency, { value: shown(v) }));
  return code;
}

function requiredText(field: string, v: unknown): string {
  const text = optionalText(field, v);
  if (text === undefined) throw recordFieldsInvalid(field, recordText.empty);
  return text;
}

function optionalText(field: string, v: unknown): string | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== "string" && typeof v !== "number")
    throw recordFieldsInvalid(field, fillBoth(recordText.text, { value: shown(v) }));
  const text = String(v).trim().replace(/\s+/gu, " ");
  if (text.length > MAX_TEXT) throw recordFieldsInvalid(field, fillBoth(recordText.tooLong, { max: MAX_TEXT }));
  return text;
}

function registrationOf(v: unknown): string | undefined {
  if (isAbsent(v)) return undefined;
  try {
    return registrationNumber(v);
  } catch (cause) {
    throw recordFieldsInvalid(
      "registrationNumber",
      fillBoth(recordText.registration, { reason: (cause as Error).message }),
      cause,
    );
  }
}

/** A value as a refusal quotes it: bounded, its type named when it is not text. */
function shown(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === undefined || v === null) return "nothing";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return Array.isArray(v) ? "a list" : "an object";
}
