import type { TextTable } from "#shared/i18n/texts.ts";

/**
 * The texts of a generation request's details, both languages side by side. A params value
 * is never one of their fills: params may hold personal data.
 */
export const requestText = {
  typeMismatch: { en: "expected {expected}, got {got}", ja: "{expected} 型が必要ですが {got} 型が指定されました" },
  dateMismatch: {
    en: "expected date as {format}, got {got}",
    ja: "{format}の日付が必要ですが、{got}が指定されました",
  },
  /** OpenAPI getDesignParameters: what a date parameter accepts. */
  dateFormat: {
    en: "YYYY-MM-DD (ISO 8601; a time may follow, e.g. 2026-11-21T09:30:00+09:00)",
    ja: "YYYY-MM-DD 形式（ISO 8601。2026-11-21T09:30:00+09:00 のように時刻を続けても可）",
  },
  notADate: { en: "a string that is not such a date", ja: "その形式の日付でない文字列" },
  typeName: { en: "{type}", ja: "{type} 型" },
  tooDeep: { en: "nests deeper than {depth} levels", ja: "入れ子が {depth} 階層を超えています" },
  illFormed: {
    en: "must be well-formed Unicode text (it holds a lone surrogate)",
    ja: "正しい Unicode 文字列である必要があります（対になっていないサロゲートを含みます）",
  },
  duplicateFileName: {
    en: 'fileName "{fileName}" of item {index} duplicates item {first}',
    ja: "{index} 番目の fileName「{fileName}」が {first} 番目と重複しています",
  },
  webhookNotRegistered: {
    en: "is not a registered, enabled webhook endpoint",
    ja: "登録済みで有効な Webhook エンドポイントではありません",
  },
  paramsTooLarge: { en: "is {bytes} bytes; the limit is {max}", ja: "{bytes} バイトあります。上限は {max} バイトです" },
  circular: { en: "refers to itself or an enclosing value", ja: "自身または親の値を参照しています" },
} as const satisfies TextTable;
