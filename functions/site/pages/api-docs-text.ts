import type { Language } from "#shared/errors/language.ts";
import { byLanguage, type InLanguage, type TextTable } from "#shared/i18n/texts.ts";

/*
 * The API reference page's own texts (`/docs/api`, `/ja/docs/api`), English and Japanese side
 * by side in the shape of ../strings.ts (`shared/i18n/texts.ts`); `{name}` placeholders are
 * filled with `fill()` of the same module. What the page shows from the OpenAPI document
 * itself (summaries, field and response descriptions) stays as the document writes it: English.
 */
const pageTexts = {
  title: { en: "API reference", ja: "API リファレンス" },
  intro: {
    en: "Every operation of the Platen API, generated from the OpenAPI 3.1 document the API serves at {openapi}. Paths are below the base URL {baseUrl}. Error answers carry a `code`: each links to its entry in the error code reference.",
    ja: "Platen API のすべての操作です。API が {openapi} で提供する OpenAPI 3.1 ドキュメントから生成しています。パスはベース URL {baseUrl} からの相対パスです。エラー応答には `code` が含まれ、各コードはエラーコードの説明にリンクしています。",
  },
  // The English page needs no note: the document's texts are in its language.
  englishNote: {
    en: "",
    ja: "操作の概要、フィールドと応答の説明は OpenAPI ドキュメントの英語のまま表示しています。",
  },
  errorDocsLink: {
    en: "Error code reference: what each code means and what to do",
    ja: "エラーコードの説明：各コードの意味と対処方法",
  },
  contents: { en: "Contents", ja: "目次" },
  operationId: { en: "Operation id", ja: "操作 ID" },
  auth: { en: "Authentication", ja: "認証" },
  authNone: { en: "none", ja: "不要" },
  authOr: { en: " or ", ja: " または " },
  scopes: { en: ", scope {scopes}", ja: "（スコープ {scopes}）" },
  authHeader: { en: "header {name}", ja: "ヘッダー {name}" },
  authCookie: { en: "cookie {name}", ja: "Cookie {name}" },
  authOAuth: {
    en: "OAuth 2 access token (Authorization: Bearer …)",
    ja: "OAuth 2 アクセストークン（Authorization: Bearer …）",
  },
  parameters: { en: "Parameters", ja: "パラメーター" },
  paramName: { en: "Name", ja: "名前" },
  paramIn: { en: "In", ja: "場所" },
  type: { en: "Type", ja: "型" },
  required: { en: "Required", ja: "必須" },
  description: { en: "Description", ja: "説明" },
  yes: { en: "yes", ja: "はい" },
  no: { en: "no", ja: "いいえ" },
  requestBody: { en: "Request body", ja: "リクエスト本文" },
  bodyRequired: { en: "JSON, required.", ja: "JSON、必須。" },
  bodyOptional: { en: "JSON, optional (may be left out).", ja: "JSON、省略可。" },
  bodyBinary: {
    en: "Or, in place of JSON, the bytes of a file (Content-Type: {type}).",
    ja: "JSON の代わりにファイルのバイト列も送信できます（Content-Type: {type}）。",
  },
  field: { en: "Field", ja: "フィールド" },
  defaultValue: { en: "default {value}", ja: "既定値 {value}" },
  anyType: { en: "any", ja: "任意" },
  arrayOf: { en: "array{bounds} of {type}", ja: "{type} の配列{bounds}" },
  responses: { en: "Responses", ja: "応答" },
  status: { en: "Status", ja: "ステータス" },
  errorCodes: { en: "Error codes", ja: "エラーコード" },
  example: { en: "Example", ja: "例" },
  exampleRequest: { en: "Example request", ja: "リクエストの例" },
  exampleAnswer: { en: "Example answer", ja: "応答の例" },
  exampleError: { en: "Example error answer", ja: "エラー応答の例" },
  backToTop: { en: "Back to contents", ja: "目次に戻る" },
} as const satisfies TextTable;

/** The headings of the operations' tags (`tags[0]` of each operation). */
const tagTexts = {
  service: { en: "Service", ja: "サービス" },
  designs: { en: "Designs", ja: "デザイン" },
  gallery: { en: "Gallery (shared templates)", ja: "ギャラリー（共有テンプレート）" },
  generation: { en: "Generation", ja: "生成" },
  management: { en: "Management (webhooks, application key)", ja: "管理（Webhook、アプリケーションキー）" },
} as const satisfies TextTable;

/** Where a parameter goes (`in` of an OpenAPI parameter). */
const paramInTexts = {
  path: { en: "path", ja: "パス" },
  query: { en: "query", ja: "クエリ" },
  header: { en: "header", ja: "ヘッダー" },
  cookie: { en: "cookie", ja: "Cookie" },
} as const satisfies TextTable;

/** The API reference's texts in one language; tags and parameter places are looked up by the document's value. */
export type ApiDocsTexts = InLanguage<typeof pageTexts> & {
  readonly tags: Readonly<Record<string, string>>;
  readonly paramIns: Readonly<Record<string, string>>;
};

const pages = byLanguage(pageTexts);
const tags = byLanguage(tagTexts);
const paramIns = byLanguage(paramInTexts);

const texts = (lang: Language): ApiDocsTexts => ({ ...pages[lang], tags: tags[lang], paramIns: paramIns[lang] });

const apiDocsTexts: Record<Language, ApiDocsTexts> = { en: texts("en"), ja: texts("ja") };

/** The API reference's texts of one language. */
export const apiDocsText = (lang: Language): ApiDocsTexts => apiDocsTexts[lang];
