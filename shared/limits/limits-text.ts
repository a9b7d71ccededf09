import type { TextTable } from "#shared/i18n/texts.ts";

/** The texts of the limits' details, both languages side by side. */
export const limitsText = {
  idempotencyKeyLength: { en: "must be 1–{max} characters", ja: "1〜{max} 文字である必要があります" },
  previewPagesLeft: {
    en: "this preview has {pages} pages; {left} preview pages are left this month",
    ja: "このプレビューは {pages} ページです。今月の残りのプレビューページは {left} ページです",
  },
} as const satisfies TextTable;
