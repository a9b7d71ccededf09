import type { TextTable } from "#shared/i18n/texts.ts";

/** The texts of the HTTP edge's own body details, both languages side by side. */
export const httpText = {
  bodyNotObject: { en: "the body must be a JSON object", ja: "本文は JSON オブジェクトである必要があります" },
  jsonContentType: {
    en: "the body must be sent with Content-Type: application/json",
    ja: "本文は Content-Type: application/json で送信してください",
  },
  illFormed: {
    en: "is not well-formed Unicode text (a lone surrogate)",
    ja: "正しい Unicode テキストではありません（対になっていないサロゲート）",
  },
} as const satisfies TextTable;
