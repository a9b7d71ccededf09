import { type Bilingual, fill } from "#shared/i18n/texts.ts";

/**
 * The error catalogue: every code the API can answer, with its HTTP status
 * and English/Japanese messages. Codes are never renamed or removed (see README.md#versioning).
 * `{name}` placeholders are filled from the error's `vars`.
 */
export interface CatalogueEntry extends Bilingual {
  status: number;
}

export const catalogue = {
  AUTH_HEADER_MISSING: {
    status: 412,
    en: "The authentication header is missing or malformed: send a well-formed appkey header or Authorization: Bearer <token>.",
    ja: "認証ヘッダーがないか、形式が正しくありません。正しい形式の appkey ヘッダーまたは Authorization: Bearer <token> を送信してください。",
  },
  INVALID_CREDENTIALS: {
    status: 401,
    en: "The credentials are invalid, revoked, lack the required scope, or do not match the workspace.",
    ja: "認証情報が無効、失効済み、必要なスコープ不足、またはワークスペースと一致しません。",
  },
  WORKSPACE_MISMATCH: {
    status: 403,
    en: "The workspaceId of the request differs from the credentials' workspace.",
    ja: "リクエストの workspaceId が認証情報のワークスペースと異なります。",
  },
  WORKSPACE_SCOPE_VIOLATION: {
    status: 403,
    en: "The output target is outside the authenticated workspace.",
    ja: "出力先が認証されたワークスペースの外にあります。",
  },
  WORKSPACE_ROLE_DENIED: {
    status: 403,
    en: "The user lacks permission in this workspace.",
    ja: "このワークスペースでの権限がありません。",
  },
  PLAN_NOT_FOUND: {
    status: 403,
    en: "The workspace has no plan information.",
    ja: "ワークスペースのプラン情報がありません。",
  },
  ACCESS_DENIED: { status: 403, en: "Access denied.", ja: "アクセスが拒否されました。" },
  PLAN_PAGE_LIMIT_EXCEEDED: {
    status: 403,
    en: "The monthly page limit of the plan has been reached ({used} of {limit} pages used).",
    ja: "プランの月間ページ上限に達しました（{limit} ページ中 {used} ページ使用済み）。",
  },
  ACTIVE_PLAN_NOT_FOUND: { status: 404, en: "No active plan.", ja: "有効なプランがありません。" },
  PREVIEW_ALLOWANCE_EXCEEDED: {
    status: 403,
    en: "The monthly preview allowance of the plan has been used ({used} of {limit} preview pages).",
    ja: "プランの月間プレビュー上限に達しました（{limit} ページ中 {used} ページ使用済み）。",
  },
  RATE_LIMITED: {
    status: 429,
    en: "Rate limit exceeded for this workspace. Retry after {retryAfter} seconds.",
    ja: "このワークスペースのレート制限を超えました。{retryAfter} 秒後に再試行してください。",
  },
  DESIGN_NOT_FOUND: { status: 404, en: "The design was not found.", ja: "デザインが見つかりません。" },
  DESIGN_VERSION_NOT_FOUND: {
    status: 404,
    en: "The design or its version was not found.",
    ja: "デザインまたはそのバージョンが見つかりません。",
  },
  DESIGN_BUNDLE_INVALID: {
    status: 422,
    en: "The design bundle is invalid: see details for each file, line and column.",
    ja: "デザインバンドルが正しくありません。details に各ファイル・行・列を示します。",
  },
  DESIGN_VERSION_CONFLICT: {
    status: 409,
    en: "Another publish created a newer version first: the design's latest version is in details.",
    ja: "別の公開が先に新しいバージョンを作成しました。最新バージョンは details にあります。",
  },
  TEMPLATE_FAILED: {
    status: 422,
    en: "The design's template could not be rendered with these params: {reason}",
    ja: "このパラメーターではデザインのテンプレートを描画できません: {reason}",
  },
  EINVOICE_INVALID: {
    status: 422,
    en: "The document's e-invoice data breaks EN 16931 rules: details name each field and rule.",
    ja: "文書の電子インボイスのデータが EN 16931 の規則に違反しています。details に各項目と規則を示します。",
  },
  RECORD_RETENTION_SHORTENED: {
    status: 409,
    en: "The record retention is only ever lengthened: it is {current} years, and {asked} would shorten it.",
    ja: "記録の保存期間は延長のみできます。現在 {current} 年で、{asked} 年にすると短くなります。",
  },
  RECORD_FIELDS_INVALID: {
    status: 422,
    en: "The document's record field {field} is not valid: {reason}",
    ja: "文書の記録項目 {field} が正しくありません: {reason}",
  },
  SIGNING_FAILED: {
    status: 422,
    en: 'The document could not be signed with the signing identity "{label}": {reason}',
    ja: "署名 ID「{label}」で文書に署名できませんでした: {reason}",
  },
  TEMPLATE_NOT_FOUND: { status: 404, en: "The template was not found.", ja: "テンプレートが見つかりません。" },
  TEMPLATE_LIMIT_EXCEEDED: {
    status: 409,
    en: "The workspace already shares the maximum of {limit} templates in the gallery; withdraw one first.",
    ja: "ワークスペースがギャラリーで共有できるテンプレートは最大 {limit} 件です。先にいずれかを取り下げてください。",
  },
  VERSION_NOT_FOUND: { status: 404, en: "The version was not found.", ja: "バージョンが見つかりません。" },
  VALIDATION_FAILED: {
    status: 400,
    en: "The request is invalid.",
    ja: "リクエストが不正です。",
  },
  PARAMS_TYPE_MISMATCH: {
    status: 400,
    en: "A params value has the wrong type.",
    ja: "params の値の型が正しくありません。",
  },
  PARAMS_NOT_OBJECT: {
    status: 400,
    en: "params and passthrough must be JSON objects.",
    ja: "params と passthrough は JSON オブジェクトである必要があります。",
  },
  PARAMS_CIRCULAR_REFERENCE: {
    status: 400,
    en: "params contains a circular reference.",
    ja: "params に循環参照が含まれています。",
  },
  PARAMS_TOO_LARGE: {
    status: 400,
    en: "params exceeds 1,000,000 bytes.",
    ja: "params が 1,000,000 バイトを超えています。",
  },
  FILE_NAME_INVALID: {
    status: 400,
    en: "fileName contains forbidden characters.",
    ja: "fileName に使用できない文字が含まれています。",
  },
  FILE_NAME_DUPLICATED: {
    status: 400,
    en: "fileName values in contents must be unique (case-insensitive).",
    ja: "contents 内の fileName は重複できません（大文字小文字を区別しません）。",
  },
  TOO_MANY_CONTENTS: {
    status: 400,
    en: "contents may hold at most 100 items.",
    ja: "contents は最大 100 件までです。",
  },
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    en: "webhookUrl is not a registered, enabled webhook endpoint of this workspace.",
    ja: "webhookUrl はこのワークスペースに登録された有効な Webhook エンドポイントではありません。",
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 400,
    en: "This Idempotency-Key was already used with a different request body.",
    ja: "この Idempotency-Key は異なるリクエスト本文で既に使用されています。",
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    en: "A request with this Idempotency-Key is still being processed. Retry after {retryAfter} seconds.",
    ja: "この Idempotency-Key のリクエストは処理中です。{retryAfter} 秒後に再試行してください。",
  },
  REQUEST_NOT_FOUND: { status: 404, en: "The request was not found.", ja: "リクエストが見つかりません。" },
  FILE_NOT_FOUND: { status: 404, en: "The file was not found.", ja: "ファイルが見つかりません。" },
  FILE_NOT_READY: {
    status: 409,
    en: "The file is still being generated. Retry after {retryAfter} seconds.",
    ja: "ファイルは生成中です。{retryAfter} 秒後に再試行してください。",
  },
  FILE_GENERATION_FAILED: {
    status: 422,
    en: "File generation failed ({failureCode}). See GET /v1/file/status/{requestId} for the reason.",
    ja: "ファイル生成に失敗しました（{failureCode}）。理由は GET /v1/file/status/{requestId} で確認してください。",
  },
  JOB_NOT_FOUND: { status: 404, en: "The job was not found.", ja: "ジョブが見つかりません。" },
  RENDER_QUEUE_FULL: {
    status: 503,
    en: "The generation queue is full. Retry with backoff.",
    ja: "生成キューが満杯です。時間をおいて再試行してください。",
  },
  CONVERT_QUEUE_FULL: {
    status: 503,
    en: "The conversion queue is full. Retry with backoff.",
    ja: "変換キューが満杯です。時間をおいて再試行してください。",
  },
  PARTIAL_FAILURE: {
    status: 200,
    en: "Some files of the request failed.",
    ja: "リクエストの一部のファイルの生成に失敗しました。",
  },
  GENERATION_INTERRUPTED: {
    status: 500,
    en: "The generation process stopped before the file was finished.",
    ja: "ファイルの完成前に生成処理が停止しました。",
  },
  INTERNAL_ERROR: {
    status: 500,
    en: "An internal error occurred.",
    ja: "内部エラーが発生しました。",
  },
  BAD_REQUEST: { status: 400, en: "The request is malformed.", ja: "リクエストの形式が正しくありません。" },
  NOT_FOUND: { status: 404, en: "No such route.", ja: "該当するルートがありません。" },
  METHOD_NOT_ALLOWED: {
    status: 405,
    en: "The method is not allowed on this route.",
    ja: "このルートではそのメソッドは使用できません。",
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: {
    status: 404,
    en: "The webhook endpoint was not found.",
    ja: "Webhook エンドポイントが見つかりません。",
  },
  WEBHOOK_ENDPOINT_LIMIT_EXCEEDED: {
    status: 409,
    en: "The workspace already has the maximum of {limit} webhook endpoints; delete one first.",
    ja: "ワークスペースの Webhook エンドポイントは最大 {limit} 件です。先にいずれかを削除してください。",
  },
  SIGNING_IDENTITY_NOT_FOUND: {
    status: 404,
    en: "The signing identity was not found.",
    ja: "署名 ID が見つかりません。",
  },
  APP_KEY_ROTATION_CONFLICT: {
    status: 409,
    en: "Another rotation of the application key finished first (at {lastRotatedAt}); its key is the valid one.",
    ja: "別のアプリケーションキー更新が先に完了しました（{lastRotatedAt}）。そちらのキーが有効です。",
  },
  DOCUMENT_PAGE_LIMIT_EXCEEDED: {
    status: 422,
    en: "The document has more than {limit} pages, the limit per document. Split it into several files.",
    ja: "文書が 1 文書あたりの上限である {limit} ページを超えています。複数のファイルに分けてください。",
  },
  DOCUMENT_HTML_LIMIT_EXCEEDED: {
    status: 422,
    en: "The template produced more than {limit} characters of HTML (or exceeded its memory limit), the limit per document.",
    ja: "テンプレートが 1 文書あたりの上限である {limit} 文字を超える HTML を出力しました（またはメモリ上限を超えました）。",
  },
  DOCUMENT_PDF_LIMIT_EXCEEDED: {
    status: 422,
    en: "The PDF would be larger than {limit} bytes, the limit per document.",
    ja: "PDF が 1 文書あたりの上限である {limit} バイトを超えます。",
  },
  RENDER_TIMEOUT: {
    status: 422,
    en: "The document did not finish rendering within its time limit; it will not render unchanged.",
    ja: "文書のレンダリングが制限時間内に完了しませんでした。変更しない限り生成できません。",
  },
  SERVICE_STARTING: {
    status: 503,
    en: "Platen is starting (creating tables and seeding sample data). Retry in a moment.",
    ja: "Platen を起動中です（テーブル作成とサンプルデータの登録）。しばらくしてから再試行してください。",
  },
  FILE_MAPPING_TOO_LARGE: {
    status: 400,
    en: "The X-File-Mapping header of this answer would be {size} bytes, over the limit of {limit}. Send the request with ?response=json (the file entries come in the body) or split it into smaller requests.",
    ja: "この応答の X-File-Mapping ヘッダーは {size} バイトになり、上限の {limit} バイトを超えます。?response=json を付けて送信する（ファイル情報は本文で返ります）か、リクエストを分割してください。",
  },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    en: "The request line and headers are too large (over {limit} KB). Send shorter headers or fewer cookies.",
    ja: "リクエスト行とヘッダーが大きすぎます（{limit} KB 超）。ヘッダーを短くするか、Cookie を減らしてください。",
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof catalogue;

/**
 * Fills a message's `{name}` placeholders from an error's `vars`, known only at run time
 * (the texts' `fill`, untyped); unknown names stay visible rather than vanish.
 */
export function formatMessage(template: string, vars: Record<string, string | number> = {}): string {
  return fill<string>(template, vars);
}
