import type { TextTable } from "#shared/i18n/texts.ts";

/**
 * The texts of a bundle's problems and of the design API's bodies, both languages side by
 * side (README.md#errors answers one of them as a detail's `message`). A `{reason}` is a
 * library's or the runtime's own words, which stay as they are worded.
 */
export const authoringText = {
  unknownField: { en: 'unknown field "{key}"', ja: "不明なフィールド「{key}」です" },
  templateNotString: { en: "template must be a string", ja: "template は文字列である必要があります" },
  styleNotString: { en: "style must be a string", ja: "style は文字列である必要があります" },
  mappingNotString: {
    en: "einvoiceMapping must be a string (the text of einvoice.liquid)",
    ja: "einvoiceMapping は文字列（einvoice.liquid の内容）である必要があります",
  },
  assetsNotObject: {
    en: "assets must be an object of name → base64",
    ja: "assets は名前 → base64 のオブジェクトである必要があります",
  },
  assetNotBase64: { en: "the asset must be base64 text", ja: "アセットは base64 テキストである必要があります" },
  noManifest: { en: "the bundle has no design.json", ja: "バンドルに design.json がありません" },
  noTemplate: { en: "the bundle has no template.liquid", ja: "バンドルに template.liquid がありません" },
  strayFile: {
    en: "only design.json, template.liquid, style.css, einvoice.liquid and assets/… belong in a bundle",
    ja: "バンドルに含められるのは design.json、template.liquid、style.css、einvoice.liquid と assets/… のみです",
  },
  tooDeep: { en: "nests deeper than {depth} levels", ja: "入れ子が {depth} 階層を超えています" },
  notJson: { en: "not valid JSON: {reason}", ja: "JSON として正しくありません: {reason}" },
  /** The studio form's JSON fields: the runtime's English reason says it already. */
  formNotJson: { en: "{reason}", ja: "JSON として正しくありません: {reason}" },
  assetNamePlain: {
    en: "asset names are plain paths below assets/",
    ja: "アセット名は assets/ 以下の単純なパスである必要があります",
  },
  assetType: {
    en: "assets are images (png, jpeg, gif, svg, webp), fonts (woff2, woff, ttf, otf) or stylesheets (css)",
    ja: "アセットは画像（png、jpeg、gif、svg、webp）、フォント（woff2、woff、ttf、otf）またはスタイルシート（css）である必要があります",
  },
  zipUnreadable: { en: "not a readable zip: {reason}", ja: "zip として読み込めません: {reason}" },
  zipTooManyFiles: { en: "more than {max} files", ja: "ファイルが {max} 個を超えています" },
  zipTooLarge: { en: "the bundle is over {mb} MB unzipped", ja: "展開後のバンドルが {mb} MB を超えています" },
  zipFileUnreadable: { en: "cannot read {name}: {reason}", ja: "{name} を読み込めません: {reason}" },
  textTooLong: { en: "longer than {max} characters", ja: "{max} 文字を超えています" },
  sampleMismatch: {
    en: "does not fit the parameter schema: {reason}",
    ja: "パラメーターのスキーマに合いません: {reason}",
  },
  moreLeftOut: {
    en: "more problems were left out: only the first {max} are listed",
    ja: "ほかにも問題があります（最初の {max} 件のみ表示しています）",
  },
  liquidSyntax: { en: "{reason}", ja: "Liquid の構文エラーです: {reason}" },
  tooManyAssets: { en: "more than {max} assets ({count})", ja: "アセットが {max} 個を超えています（{count} 個）" },
  assetTooLarge: { en: "larger than {mb} MB", ja: "{mb} MB を超えています" },
  assetsTooLarge: { en: "assets over {mb} MB in all", ja: "アセットの合計が {mb} MB を超えています" },
  missingAsset: {
    en: "names {name}, which the bundle does not have",
    ja: "バンドルにない {name} を参照しています",
  },
  mappingMissing: {
    en: "the design writes an e-invoice, but the bundle has no {file} (the mapping einvoice.data names)",
    ja: "デザインは電子インボイスを出力しますが、バンドルに {file}（einvoice.data が示すマッピング）がありません",
  },
  mappingUndeclared: {
    en: "the bundle has {file} but design.json has no einvoice: add {declaration} or remove the file",
    ja: "バンドルに {file} がありますが、design.json に einvoice がありません。{declaration} を追加するか、ファイルを削除してください",
  },
  mappingRender: {
    en: "rendering the mapping with sampleParams: {reason}",
    ja: "sampleParams でマッピングを描画できません: {reason}",
  },
  sampleBreaksRule: {
    en: "the sample invoice (sampleParams) breaks {rule}: {reason}",
    ja: "サンプルのインボイス（sampleParams）が {rule} に違反しています: {reason}",
  },
  moreViolations: {
    en: "and {count} more rule violations of the sample invoice",
    ja: "サンプルのインボイスには、ほかに {count} 件の規則違反があります",
  },
  outputNotJson: {
    en: "rendered with sampleParams, the mapping's output is not JSON{where} ({reason}); write values with | json",
    ja: "sampleParams で描画したマッピングの出力が JSON ではありません{where}: {reason}。値は | json で出力してください",
  },
  outputPlace: {
    en: " at line {line}, column {column} of the output, near {near}",
    ja: "（出力の {line} 行 {column} 列目、{near} 付近）",
  },
  emptyZip: { en: "the body is an empty zip", ja: "本文の zip が空です" },
  zipQuery: {
    en: "note ≤ 1000 characters; expectedLatestVersion an integer ≥ 0",
    ja: "note は 1000 文字以内、expectedLatestVersion は 0 以上の整数である必要があります",
  },
  bodyContentType: {
    en: "send a bundle zip with Content-Type: application/zip, or JSON with Content-Type: application/json",
    ja: "バンドルの zip は Content-Type: application/zip、JSON は Content-Type: application/json で送信してください",
  },
  bodyNotZipOrJson: {
    en: "the body must be a bundle zip (Content-Type: application/zip) or a JSON object",
    ja: "本文はバンドルの zip（Content-Type: application/zip）または JSON オブジェクトである必要があります",
  },
  bodyNotObject: { en: "the body must be a JSON object", ja: "本文は JSON オブジェクトである必要があります" },
  fromDraftAlone: {
    en: '`from` takes only "draft", alone',
    ja: '`from` には "draft" のみを、ほかのフィールドなしで指定してください',
  },
  fromTemplateFields: {
    en: "`fromTemplate` takes a template id and an optional label",
    ja: "`fromTemplate` にはテンプレート ID を指定してください（label は任意です）",
  },
  noDraft: { en: "the design has no draft", ja: "このデザインには下書きがありません" },
  templateFailed: { en: "{reason}", ja: "テンプレートを描画できません: {reason}" },
  sampleRenderFailed: {
    en: "rendering the sample document: {reason}",
    ja: "サンプル文書の描画中にエラーが発生しました: {reason}",
  },
  sampleRefused: {
    en: "the sample document cannot be rendered: {reason}",
    ja: "サンプル文書を描画できません: {reason}",
  },
} as const satisfies TextTable;
