import type { TextTable } from "#shared/i18n/texts.ts";

/** The texts of the design and gallery routes' details, both languages side by side. */
export const designDetailText = {
  pageNumber: { en: "must be an integer ≥ 1", ja: "1 以上の整数である必要があります" },
  cursor: {
    en: "pass the `next` of the previous page as it came",
    ja: "前のページの `next` をそのまま指定してください",
  },
  galleryByCursor: {
    en: "the gallery is read by cursor: pass the answer's `next` as `cursor`",
    ja: "ギャラリーはカーソルで読みます。応答の `next` を `cursor` に指定してください",
  },
  shareLimit: {
    en: "a workspace shares at most {max} templates: withdraw one to share another design",
    ja: "ワークスペースが共有できるテンプレートは最大 {max} 件です。別のデザインを共有するには、いずれかを取り下げてください",
  },
  versionConflict: {
    en: "another publish created version {version} first",
    ja: "別の公開が先にバージョン {version} を作成しました",
  },
  pdfaProtection: {
    en: "the design prints {standard}, and PDF/A forbids encryption: send no protection for this design",
    ja: "このデザインは {standard} で出力され、PDF/A は暗号化を認めません。このデザインには protection を指定しないでください",
  },
  unknownSigningIdentity: {
    en: 'the workspace has no signing identity labelled "{label}": add it (POST /v1/workspace/{workspaceId}/signing-identities) or name one it has',
    ja: "ワークスペースに「{label}」というラベルの署名 ID がありません。追加する（POST /v1/workspace/{workspaceId}/signing-identities）か、既存のラベルを指定してください",
  },
  signedProtection: {
    en: "the design signs its documents, and a signed PDF is not encrypted (encrypting it would change the signed bytes): send no protection for this design",
    ja: "このデザインは文書に署名します。署名した PDF は暗号化されません（暗号化すると署名したバイトが変わります）。このデザインには protection を指定しないでください",
  },
} as const satisfies TextTable;
