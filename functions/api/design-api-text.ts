import type { TextTable } from "#shared/i18n/texts.ts";

/** The texts of the design API routes' own details, both languages side by side. */
export const designApiText = {
  newDesignNoVersions: {
    en: "a new design has no versions yet: publish with it later",
    ja: "新しいデザインにはまだバージョンがありません。次回以降の公開で指定してください",
  },
  newDesignNoDraft: {
    en: "a new design has no draft: send a bundle or fromTemplate",
    ja: "新しいデザインには下書きがありません。バンドルまたは fromTemplate を送信してください",
  },
  galleryCopyIsNew: {
    en: "a gallery copy is a new design: POST /designs",
    ja: "ギャラリーからのコピーは新しいデザインになります。POST /designs を使用してください",
  },
  previewFormat: { en: "pdf or png", ja: "pdf または png である必要があります" },
  previewPage: { en: "an integer ≥ 1", ja: "1 以上の整数である必要があります" },
  previewPages: { en: "the preview has {pages} page(s)", ja: "プレビューは {pages} ページです" },
  archivedNeedsAdmin: {
    en: "listing archived designs needs the ADMIN role",
    ja: "アーカイブ済みデザインの一覧には ADMIN ロールが必要です",
  },
} as const satisfies TextTable;
