import { RECORD_TYPES } from "#shared/designs/bundle-schema.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { Bilingual } from "#shared/i18n/texts.ts";
import { counterpartySearchForm, recordDate } from "./record-fields.ts";
import type { RecordQuery } from "./record-store.ts";

/** The filters of `GET /v1/records`, `/records/export` and `/records/verify`, as query parameters. */
export const RECORD_FILTERS = [
  "type",
  "dateFrom",
  "dateTo",
  "amountMin",
  "amountMax",
  "currency",
  "counterparty",
  "number",
] as const;

/** 400 VALIDATION_FAILED naming the query parameter (the error body puts the name before the text). */
export const badParameter = (field: string, text: Bilingual) =>
  new PlatenError("VALIDATION_FAILED", { details: [{ field, text }] });

/** What each refusal says. */
export const queryText = {
  type: { en: `one of ${RECORD_TYPES.join(", ")}`, ja: `${RECORD_TYPES.join("、")} のいずれかを指定してください` },
  date: { en: "a date as YYYY-MM-DD", ja: "YYYY-MM-DD 形式の実在する日付を指定してください" },
  amount: { en: "an integer amount in minor units", ja: "最小通貨単位の整数で指定してください" },
  dateOrder: { en: "not after dateTo", ja: "dateTo より後の日付は指定できません" },
  amountOrder: { en: "not above amountMax", ja: "amountMax より大きい値は指定できません" },
  currency: { en: "an ISO 4217 code", ja: "ISO 4217 の通貨コードを指定してください" },
  tooLong: { en: "at most 200 characters", ja: "200 文字以内で指定してください" },
  cursor: { en: "not a cursor of this search", ja: "この検索のカーソルではありません" },
  exportTooLarge: {
    en: "more than 100,000 records match: narrow the date range or add filters, and export in parts",
    ja: "該当する記録が 100,000 件を超えています。期間を短くするか条件を加え、分けて出力してください",
  },
} satisfies Record<string, Bilingual>;

/**
 * The search a request's query parameters ask for, in the caller's workspace. Every given condition
 * applies; dates and amounts are inclusive ranges (`amountMin`/`amountMax` in minor units, as records keep
 * them); `counterparty` matches part of the search form.
 * @throws PlatenError VALIDATION_FAILED naming the first malformed parameter (a non-date, from > to, …)
 */
export function parseRecordQuery(workspaceId: string, read: (name: string) => string | undefined): RecordQuery {
  const value = (name: string) => {
    const v = read(name)?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const type = value("type");
  if (type !== undefined && !RECORD_TYPES.some((t) => t === type)) throw badParameter("type", queryText.type);
  const date = (name: string) => {
    const v = value(name);
    if (v === undefined) return undefined;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) throw badParameter(name, queryText.date);
    try {
      return recordDate(v);
    } catch {
      throw badParameter(name, queryText.date);
    }
  };
  const amount = (name: string) => {
    const v = value(name);
    if (v === undefined) return undefined;
    if (!/^-?\d{1,15}$/.test(v)) throw badParameter(name, queryText.amount);
    return Number(v);
  };
  const [dateFrom, dateTo, amountMin, amountMax] = [
    date("dateFrom"),
    date("dateTo"),
    amount("amountMin"),
    amount("amountMax"),
  ];
  if (dateFrom && dateTo && dateFrom > dateTo) throw badParameter("dateFrom", queryText.dateOrder);
  if (amountMin !== undefined && amountMax !== undefined && amountMin > amountMax)
    throw badParameter("amountMin", queryText.amountOrder);
  const currency = value("currency")?.toUpperCase();
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) throw badParameter("currency", queryText.currency);
  const counterparty = value("counterparty");
  const number = value("number");
  if ((counterparty?.length ?? 0) > 200 || (number?.length ?? 0) > 200)
    throw badParameter(counterparty ? "counterparty" : "number", queryText.tooLong);
  return {
    workspaceId,
    ...(type && { type: RECORD_TYPES.find((t) => t === type)! }),
    ...(dateFrom && { dateFrom }),
    ...(dateTo && { dateTo }),
    ...(amountMin !== undefined && { amountMin }),
    ...(amountMax !== undefined && { amountMax }),
    ...(currency && { currency }),
    ...(counterparty && { counterparty: counterpartySearchForm(counterparty) }),
    ...(number && { number }),
  };
}

/** The filters a query holds, as the audit log keeps them (text values only). */
export function auditFilters(query: RecordQuery): Record<string, string> {
  const { workspaceId: _, ...filters } = query;
  return Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, String(v)]));
}
