import type { TextTable } from "#shared/i18n/texts.ts";

/**
 * The texts of the body and schema checks' details, both languages side by side. V8's own
 * reason stays English: the Japanese text of a JSON mistake names only its place.
 */
export const validationText = {
  required: { en: "is required", ja: "必須です" },
  bodyEmpty: {
    en: "the body is empty: send a JSON object",
    ja: "本文が空です。JSON オブジェクトを送信してください",
  },
  bodyNotJson: {
    en: "the body is not valid JSON (line {line}, column {column}): {reason}",
    ja: "本文が正しい JSON ではありません（{line} 行 {column} 列目）",
  },
} as const satisfies TextTable;
