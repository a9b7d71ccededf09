import type { Language } from "#shared/errors/language.ts";

/**
 * The API reference page's own texts (`/docs/api`, `/ja/docs/api`), in English and Japanese,
 * in the shape of ../strings.ts (one object per language, `{name}` placeholders). What the
 * page shows from the OpenAPI document itself (summaries, field and response descriptions)
 * stays as the document writes it: English.
 */
const en = {
  title: "API reference",
  navLabel: "API reference",
  intro:
    "Every operation of the Platen API, generated from the OpenAPI 3.1 document the API serves at {openapi}. Paths are below the base URL {baseUrl}. Error answers carry a `code`: each links to its entry in the error code reference.",
  englishNote: "",
  errorDocsLink: "Error code reference: what each code means and what to do",
  contents: "Contents",
  tags: {
    service: "Service",
    designs: "Designs",
    generation: "Generation",
    management: "Management (webhooks, application key)",
  } as Record<string, string>,
  operationId: "Operation id",
  auth: "Authentication",
  authNone: "none",
  authOr: " or ",
  scopes: ", scope {scopes}",
  authHeader: "header {name}",
  authCookie: "cookie {name}",
  authOAuth: "OAuth 2 access token (Authorization: Bearer …)",
  parameters: "Parameters",
  paramName: "Name",
  paramIn: "In",
  paramIns: { path: "path", query: "query", header: "header", cookie: "cookie" } as Record<string, string>,
  type: "Type",
  required: "Required",
  description: "Description",
  yes: "yes",
  no: "no",
  requestBody: "Request body",
  bodyRequired: "JSON, required.",
  bodyOptional: "JSON, optional (may be left out).",
  field: "Field",
  defaultValue: "default {value}",
  anyType: "any",
  arrayOf: "array{bounds} of {type}",
  responses: "Responses",
  status: "Status",
  errorCodes: "Error codes",
  example: "Example",
  exampleRequest: "Example request",
  exampleAnswer: "Example answer",
  exampleError: "Example error answer",
  backToTop: "Back to contents",
} as const;

type Texts = {
  [K in keyof typeof en]: (typeof en)[K] extends Record<string, string> ? Record<string, string> : string;
};

const ja: Texts = {
  title: "API リファレンス",
  navLabel: "API リファレンス",
  intro:
    "Platen API のすべての操作です。API が {openapi} で提供する OpenAPI 3.1 ドキュメントから生成しています。パスはベース URL {baseUrl} からの相対パスです。エラー応答には `code` が含まれ、各コードはエラーコードの説明にリンクしています。",
  englishNote: "操作の概要、フィールドと応答の説明は OpenAPI ドキュメントの英語のまま表示しています。",
  errorDocsLink: "エラーコードの説明：各コードの意味と対処方法",
  contents: "目次",
  tags: {
    service: "サービス",
    designs: "デザイン",
    generation: "生成",
    management: "管理（Webhook、アプリケーションキー）",
  },
  operationId: "操作 ID",
  auth: "認証",
  authNone: "不要",
  authOr: " または ",
  scopes: "（スコープ {scopes}）",
  authHeader: "ヘッダー {name}",
  authCookie: "Cookie {name}",
  authOAuth: "OAuth 2 アクセストークン（Authorization: Bearer …）",
  parameters: "パラメーター",
  paramName: "名前",
  paramIn: "場所",
  paramIns: { path: "パス", query: "クエリ", header: "ヘッダー", cookie: "Cookie" },
  type: "型",
  required: "必須",
  description: "説明",
  yes: "はい",
  no: "いいえ",
  requestBody: "リクエスト本文",
  bodyRequired: "JSON、必須。",
  bodyOptional: "JSON、省略可。",
  field: "フィールド",
  defaultValue: "既定値 {value}",
  anyType: "任意",
  arrayOf: "{type} の配列{bounds}",
  responses: "応答",
  status: "ステータス",
  errorCodes: "エラーコード",
  example: "例",
  exampleRequest: "リクエストの例",
  exampleAnswer: "応答の例",
  exampleError: "エラー応答の例",
  backToTop: "目次に戻る",
};

const byLanguage: Record<Language, Texts> = { en, ja };

/** The API reference's texts of one language. */
export const apiDocsText = (lang: Language): Texts => byLanguage[lang];
