import type { Bilingual } from "#shared/i18n/texts.ts";
import { type CatalogueEntry, catalogue, type ErrorCode } from "./catalogue.ts";

/** The explanation of one code on the error docs pages: when it happens and what to do. */
export interface ErrorDoc {
  code: string;
  /** The anchor `docsUrl` points at (shared/errors/error-body.ts): the code in lowercase. */
  anchor: string;
  /** HTTP status, or undefined for codes that never are a status (webhook / status-only). */
  status: number | undefined;
  when: Bilingual;
  todo: Bilingual;
}

const RETRY_LATER: Bilingual = {
  en: "Resend the same request after the `Retry-After` seconds (also in the body's `retryAfter`).",
  ja: "`Retry-After` の秒数（本文の `retryAfter` と同じ）だけ待ってから、同じリクエストを再送してください。",
};
const FIX_REQUEST: Bilingual = {
  en: "Correct the request as the message and `details` describe; resending it unchanged fails again.",
  ja: "メッセージと `details` の内容に従ってリクエストを修正してください。そのまま再送しても同じエラーになります。",
};
const BACKOFF: Bilingual = {
  en: "Retry with exponential backoff. If it persists, contact support with the `X-Request-ID`.",
  ja: "指数バックオフで再試行してください。解消しない場合は `X-Request-ID` を添えてサポートに連絡してください。",
};

/** What the catalogue's one-line message does not say (see shared/errors/catalogue.ts), per code. */
const docs: Partial<Record<ErrorCode, { when?: Bilingual; todo: Bilingual }>> = {
  AUTH_HEADER_MISSING: {
    todo: {
      en: "Send the `appkey` header with the workspace application key, or `Authorization: Bearer <token>`.",
      ja: "`appkey` ヘッダーにワークスペースのアプリケーションキーを入れるか、`Authorization: Bearer <token>` を送信してください。",
    },
  },
  INVALID_CREDENTIALS: {
    todo: {
      en: "Check the key (it may have been rotated), the token's expiry and its `pdf:generate` scope, and that `x-workspace-id`, if sent, names the key's workspace.",
      ja: "キー（ローテーション済みの可能性）、トークンの有効期限と `pdf:generate` スコープ、送信している場合は `x-workspace-id` がキーのワークスペースと一致するかを確認してください。",
    },
  },
  WORKSPACE_MISMATCH: {
    todo: {
      en: "Use the workspaceId of the credentials' workspace.",
      ja: "認証情報のワークスペースの workspaceId を指定してください。",
    },
  },
  WORKSPACE_SCOPE_VIOLATION: {
    todo: {
      en: "Write output only inside the authenticated workspace.",
      ja: "出力先は認証されたワークスペース内にしてください。",
    },
  },
  WORKSPACE_ROLE_DENIED: {
    todo: {
      en: "Ask a workspace administrator for the needed role. Authorizing the same account again does not help.",
      ja: "ワークスペース管理者に必要なロールを依頼してください。同じアカウントで再認可しても解決しません。",
    },
  },
  PLAN_NOT_FOUND: {
    todo: {
      en: "Contact support: the workspace has no plan assigned.",
      ja: "サポートに連絡してください。ワークスペースにプランが割り当てられていません。",
    },
  },
  ACCESS_DENIED: {
    todo: {
      en: "Check that the account may use this feature.",
      ja: "このアカウントがこの機能を利用できるか確認してください。",
    },
  },
  PLAN_PAGE_LIMIT_EXCEEDED: {
    when: {
      en: "The month's output pages of the plan are used up; checked before a generation is accepted.",
      ja: "プランの当月の出力ページ数を使い切りました。生成の受け付け前に確認されます。",
    },
    todo: {
      en: "Wait for the next month (UTC) or move to a plan that bills extra pages.",
      ja: "翌月（UTC）まで待つか、超過ページを課金できるプランに変更してください。",
    },
  },
  PREVIEW_ALLOWANCE_EXCEEDED: {
    when: {
      en: "The month's preview pages of the plan are used up; checked before a preview renders, and again with its page count after. Generation pages are counted apart and are not affected.",
      ja: "プランの当月のプレビューページ数を使い切りました。プレビューの描画前と、描画後のページ数で確認されます。生成のページ数とは別に数えられ、影響しません。",
    },
    todo: {
      en: "Wait for the next month (UTC), preview fewer pages, or move to a plan with a larger allowance. Generating documents still works.",
      ja: "翌月（UTC）まで待つか、プレビューのページ数を減らすか、上限の大きいプランに変更してください。文書の生成はそのまま利用できます。",
    },
  },
  ACTIVE_PLAN_NOT_FOUND: {
    todo: {
      en: "Renew or choose a plan for the workspace.",
      ja: "ワークスペースのプランを更新または選択してください。",
    },
  },
  RATE_LIMITED: {
    when: {
      en: "The workspace sent more requests of this kind in the current minute than its rate limit allows (sync 30, async 100, download and retrieval 100, status 300).",
      ja: "ワークスペースがこの種類のリクエストを 1 分間の上限（同期 30、非同期 100、ダウンロード・取得 100、ステータス 300）を超えて送信しました。",
    },
    todo: RETRY_LATER,
  },
  DESIGN_NOT_FOUND: {
    todo: {
      en: "Use a designId from GET /v1/file/designs of the same workspace.",
      ja: "同じワークスペースの GET /v1/file/designs で得た designId を使ってください。",
    },
  },
  DESIGN_VERSION_NOT_FOUND: {
    todo: {
      en: "Use a designId and a version listed by GET /v1/file/designs (`latestVersion`).",
      ja: "GET /v1/file/designs に表示される designId と version（`latestVersion`）を使ってください。",
    },
  },
  DESIGN_BUNDLE_INVALID: {
    when: {
      en: "A design create, publish or draft check found problems: Liquid syntax, the parameter schema, sampleParams that do not fit it, an unknown page size, an asset the template names but the bundle lacks, assets over the limits (10 MB, 100 files, images and fonts only), or a sample document over the document limits.",
      ja: "デザインの作成・公開・下書きの検査で問題が見つかりました（Liquid の構文、パラメーター定義、定義に合わない sampleParams、不明な用紙サイズ、テンプレートが参照するがバンドルにないアセット、上限（10 MB、100 ファイル、画像とフォントのみ）を超えるアセット、文書上限を超えるサンプル文書）。",
    },
    todo: {
      en: "Fix each entry of `details[]`: it names the file and, where known, the line and column.",
      ja: "`details[]` の各項目を修正してください。ファイルと、分かる場合は行と列を示します。",
    },
  },
  DESIGN_VERSION_CONFLICT: {
    when: {
      en: "A publish sent `expectedLatestVersion`, and another publish had already created a newer version.",
      ja: "`expectedLatestVersion` を付けた公開の前に、別の公開が新しいバージョンを作成していました。",
    },
    todo: {
      en: "Read the version that won (`details[0].latestVersion`), merge your change into it, and publish again with the new expected version.",
      ja: "先に作成されたバージョン（`details[0].latestVersion`）を確認し、変更を反映してから新しい期待バージョンで再度公開してください。",
    },
  },
  TEMPLATE_FAILED: {
    when: {
      en: "Rendering the design's template failed for this document: a filter refused a value (a barcode whose check digit is wrong or whose characters the symbology cannot encode, an invalid registration number), or a Liquid error at render time. The reason names the value and the filter. Sync answers it; an async file fails with it. Nothing is billed.",
      ja: "この文書でデザインのテンプレートの描画に失敗しました（フィルターが値を拒否した：チェックディジットが正しくない、またはシンボルで表せない文字を含むバーコード、不正な登録番号など。または描画時の Liquid エラー）。理由に値とフィルターが示されます。同期生成はこのエラーで応答し、非同期生成ではそのファイルがこのコードで失敗します。課金されません。",
    },
    todo: {
      en: "Correct the params value the reason names (or the template), then send the request again.",
      ja: "理由に示された params の値（またはテンプレート）を修正してから、再度送信してください。",
    },
  },
  EINVOICE_INVALID: {
    when: {
      en: "The design writes an e-invoice (`einvoice` in design.json), and the invoice its mapping made from these params breaks an EN 16931 business rule (a mandatory term missing, totals that differ from the computed ones, a VAT category without what it needs) or a rule of the format (XRechnung, Peppol BIS). Each detail names the model field (`field`, e.g. `seller.name`) and the rule (`code`, e.g. `BR-06`). Sync answers it; an async file fails with it. Nothing is billed.",
      ja: "デザインが電子インボイスを出力し（design.json の `einvoice`）、このパラメーターからマッピングが作ったインボイスが EN 16931 のビジネスルール（必須項目の欠落、計算結果と異なる合計、必要な情報のない税区分など）または形式の規則（XRechnung、Peppol BIS）に違反しています。各 detail はモデルの項目（`field`、例: `seller.name`）と規則（`code`、例: `BR-06`）を示します。同期生成はこのエラーで応答し、非同期生成ではそのファイルがこのコードで失敗します。課金されません。",
    },
    todo: {
      en: "Correct the params (or the design's einvoice.liquid mapping) so each named field meets its rule, then send the request again.",
      ja: "示された各項目が規則を満たすよう params（またはデザインの einvoice.liquid マッピング）を修正してから、再度送信してください。",
    },
  },
  RECORD_RETENTION_SHORTENED: {
    when: {
      en: "A workspace's record retention (7 or 10 years) may only be lengthened: records already kept are locked for the period they were kept with, and records made later must not be kept for less than the law may ask. The setting was not changed.",
      ja: "ワークスペースの記録の保存期間（7 年または 10 年）は延長のみできます。保存済みの記録は保存時の期間でロックされており、以後の記録を法令の求めより短く保存しないためです。設定は変更されていません。",
    },
    todo: {
      en: "Keep the current retention; set 10 years only to lengthen it.",
      ja: "現在の保存期間のままにしてください。10 年への変更（延長）のみ行えます。",
    },
  },
  RECORD_FIELDS_INVALID: {
    when: {
      en: "The design keeps a transaction record of every file (`record` in design.json), and one of its fields did not evaluate to a valid value for these params: a date that is not a real YYYY-MM-DD day, an amount that is not a number or has more decimals than its currency, an empty counterparty, a registration number that is not T and 13 digits. `details` names the field (`record.date`, `record.amount`, …). Sync answers it; an async file fails with it. No browser is taken, no record is made and nothing is billed.",
      ja: "デザインが生成する各ファイルを取引記録として保存し（design.json の `record`）、このパラメーターではその項目が正しい値になりませんでした（実在しない日付や YYYY-MM-DD 以外の日付、数値でない金額や通貨の桁数を超える小数、空の取引先、T と 13 桁の数字でない登録番号など）。`details` が項目（`record.date`、`record.amount` など）を示します。同期生成はこのエラーで応答し、非同期生成ではそのファイルがこのコードで失敗します。ブラウザーは使われず、記録は作られず、課金されません。",
    },
    todo: {
      en: "Correct the params (or the design's record expressions) so the named field has a valid value, then send the request again.",
      ja: "示された項目が正しい値になるよう params（またはデザインの record の式）を修正してから、再度送信してください。",
    },
  },
  SIGNING_FAILED: {
    when: {
      en: "The design signs its documents (`signature` in design.json) and this one could not be signed: the workspace has no signing identity of the design's label any more, its certificate expired, the page of a visible signature does not exist, or, for level B-T, the time-stamp authority did not answer after three attempts. A document asked to be B-T is never delivered without its time-stamp. Sync answers it; an async file fails with it. Nothing is billed.",
      ja: "デザインが文書に署名し（design.json の `signature`）、この文書に署名できませんでした。デザインのラベルの署名 ID がワークスペースにない、証明書の期限切れ、可視署名のページが存在しない、または B-T でタイムスタンプ局が 3 回の試行で応答しなかった場合です。B-T を求められた文書がタイムスタンプなしで届くことはありません。同期生成はこのエラーで応答し、非同期生成ではそのファイルがこのコードで失敗します。課金されません。",
    },
    todo: {
      en: "Add a signing identity with the label the reason names (POST /v1/workspace/{workspaceId}/signing-identities), publish the design with an existing label, or retry later when the time-stamp authority is back.",
      ja: "理由に示されたラベルの署名 ID を追加する（POST /v1/workspace/{workspaceId}/signing-identities）、存在するラベルでデザインを公開する、またはタイムスタンプ局が復旧してから再試行してください。",
    },
  },
  TEMPLATE_NOT_FOUND: {
    todo: {
      en: "Use a template id from GET {auth_url}/public/templates; a withdrawn template is gone.",
      ja: "GET {auth_url}/public/templates で得たテンプレート ID を使ってください。取り下げられたテンプレートは利用できません。",
    },
  },
  TEMPLATE_LIMIT_EXCEEDED: {
    when: {
      en: "Sharing a design that is not in the gallery yet, when the workspace's shared templates are at the cap. Sharing a design again replaces its entry and is never refused.",
      ja: "ギャラリーにまだないデザインを共有しようとしたが、ワークスペースの共有テンプレートが上限に達している場合です。共有済みのデザインを再度共有すると既存のエントリーが置き換わるため、拒否されません。",
    },
    todo: {
      en: "Withdraw a template the workspace no longer needs (DELETE /templates/{templateId}), then share again.",
      ja: "不要になったテンプレートを取り下げて（DELETE /templates/{templateId}）から、もう一度共有してください。",
    },
  },
  VERSION_NOT_FOUND: {
    todo: { en: "Use an existing version of the design.", ja: "デザインに存在するバージョンを指定してください。" },
  },
  VALIDATION_FAILED: { todo: FIX_REQUEST },
  PARAMS_TYPE_MISMATCH: {
    when: {
      en: "A `params` value does not have the type of the template's parameter (also the failure code of an async file in the status and webhook).",
      ja: "`params` の値がテンプレートのパラメーターの型と異なります（非同期生成ではステータスと Webhook の失敗コードにもなります）。",
    },
    todo: {
      en: "Send values of the types GET /v1/file/design/parameter/{designId} lists (`details[].expected`).",
      ja: "GET /v1/file/design/parameter/{designId} が示す型（`details[].expected`）の値を送信してください。",
    },
  },
  PARAMS_NOT_OBJECT: {
    todo: {
      en: "Send `params` and `passthrough` as JSON objects.",
      ja: "`params` と `passthrough` は JSON オブジェクトで送信してください。",
    },
  },
  PARAMS_CIRCULAR_REFERENCE: {
    todo: { en: "Remove the circular reference from `params`.", ja: "`params` から循環参照を取り除いてください。" },
  },
  PARAMS_TOO_LARGE: {
    todo: {
      en: "Keep `params` under 1,000,000 bytes; move large data out of the request.",
      ja: "`params` を 1,000,000 バイト未満にしてください。大きなデータはリクエストに含めないでください。",
    },
  },
  FILE_NAME_INVALID: {
    todo: {
      en: "Remove slashes, backslashes, colons, asterisks, question marks, double quotes, angle brackets, pipes and control characters from `fileName`.",
      ja: "`fileName` からスラッシュ、バックスラッシュ、コロン、アスタリスク、疑問符、二重引用符、山かっこ、パイプ、制御文字を取り除いてください。",
    },
  },
  FILE_NAME_DUPLICATED: {
    todo: {
      en: "Give every item of `contents` a different `fileName` (compared case-insensitively).",
      ja: "`contents` の各項目に異なる `fileName` を付けてください（大文字小文字は区別されません）。",
    },
  },
  TOO_MANY_CONTENTS: {
    todo: {
      en: "Split the request into requests of at most 100 items.",
      ja: "1 リクエストあたり 100 件以下に分割してください。",
    },
  },
  WEBHOOK_URL_NOT_ALLOWED: {
    todo: {
      en: "Register the URL as a webhook endpoint of the workspace and enable it, or omit `webhookUrl`.",
      ja: "URL をワークスペースの Webhook エンドポイントとして登録して有効にするか、`webhookUrl` を省略してください。",
    },
  },
  IDEMPOTENCY_KEY_REUSED: {
    todo: {
      en: "Use a new Idempotency-Key for a different request body.",
      ja: "異なるリクエスト本文には新しい Idempotency-Key を使ってください。",
    },
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: { todo: RETRY_LATER },
  REQUEST_NOT_FOUND: {
    when: {
      en: "Unknown requestId, another workspace's request, a failed single request older than 24 hours, deleted files, or a just-accepted request whose job record was not saved.",
      ja: "不明な requestId、他のワークスペースのリクエスト、24 時間以上前に失敗した単一リクエスト、削除済みのファイル、またはジョブ記録が保存されなかった受付直後のリクエストです。",
    },
    todo: {
      en: "Check the requestId and the credentials' workspace; for a just-accepted request, check once or twice again a few seconds apart.",
      ja: "requestId と認証情報のワークスペースを確認してください。受付直後のリクエストは数秒おきに 1〜2 回再確認してください。",
    },
  },
  FILE_NOT_FOUND: {
    when: {
      en: "Wrong id, another workspace's file (existence is hidden), a single generation that failed over 24 hours ago, deleted output, or an in-progress request without a job record.",
      ja: "ID の誤り、他のワークスペースのファイル（存在は隠されます）、24 時間以上前に失敗した単一生成、削除された出力、またはジョブ記録のない処理中リクエストです。",
    },
    todo: {
      en: "Check the ids and the workspace; files are kept for the workspace's retention period only.",
      ja: "ID とワークスペースを確認してください。ファイルはワークスペースの保存期間だけ保持されます。",
    },
  },
  FILE_NOT_READY: { todo: RETRY_LATER },
  FILE_GENERATION_FAILED: {
    when: {
      en: "The request or file failed to generate (download answer 422), or every file of a multiple request failed (status `error.code`).",
      ja: "リクエストまたはファイルの生成に失敗しました（ダウンロードは 422）。または複数リクエストの全ファイルが失敗しました（ステータスの `error.code`）。",
    },
    todo: {
      en: "Read GET /v1/file/status/{requestId}: `failedFiles` names each file's own code. Fix the cause and generate again.",
      ja: "GET /v1/file/status/{requestId} の `failedFiles` で各ファイルのコードを確認し、原因を直して再生成してください。",
    },
  },
  JOB_NOT_FOUND: { todo: { en: "Check the job id.", ja: "ジョブ ID を確認してください。" } },
  RENDER_QUEUE_FULL: { todo: BACKOFF },
  CONVERT_QUEUE_FULL: { todo: BACKOFF },
  PARTIAL_FAILURE: {
    when: {
      en: "Webhook `file.failed` only: some files of a multiple request failed while others succeeded (sent only to the request's `webhookUrl`).",
      ja: "Webhook `file.failed` のみ: 複数リクエストの一部のファイルが失敗しました（リクエストの `webhookUrl` にのみ送信）。",
    },
    todo: {
      en: "Successful files arrive as `file.completed`; read `failedFiles` of the status for the others and generate them again.",
      ja: "成功したファイルは `file.completed` で届きます。その他はステータスの `failedFiles` を確認して再生成してください。",
    },
  },
  GENERATION_INTERRUPTED: {
    when: {
      en: "Status only: the generation process stopped before the file was finished.",
      ja: "ステータスのみ: ファイルの完成前に生成処理が停止しました。",
    },
    todo: { en: "Generate the file again; nothing was billed for it twice.", ja: "ファイルを再生成してください。" },
  },
  INTERNAL_ERROR: { todo: BACKOFF },
  BAD_REQUEST: { todo: FIX_REQUEST },
  NOT_FOUND: {
    todo: {
      en: "Check the method and path against the API reference; paths start with `/v1`.",
      ja: "メソッドとパスを API リファレンスと照合してください。パスは `/v1` で始まります。",
    },
  },
  METHOD_NOT_ALLOWED: {
    todo: { en: "Use a method the route supports.", ja: "ルートが対応するメソッドを使ってください。" },
  },
  FILE_MAPPING_TOO_LARGE: {
    when: {
      en: "A sync request answered with the PDF or ZIP itself would carry an `X-File-Mapping` header (file names, passthrough, share URLs, URL-encoded) over the size limit (64 KiB by default); refused before any rendering, so no page counts.",
      ja: "PDF または ZIP 本体で応答する同期リクエストの `X-File-Mapping` ヘッダー（ファイル名、passthrough、共有 URL を URL エンコードしたもの）がサイズ上限（既定 64 KiB）を超えます。レンダリング前に拒否されるため、ページは消費されません。",
    },
    todo: {
      en: "Add `?response=json`: the body then lists every file (ids, names, passthrough, share) and each PDF downloads from its `downloadPath`. Or send fewer files, shorter names or smaller passthrough per request.",
      ja: "`?response=json` を付けてください。本文に全ファイル（ID、名前、passthrough、共有情報）が返り、各 PDF は `downloadPath` からダウンロードできます。または 1 リクエストのファイル数、名前の長さ、passthrough を減らしてください。",
    },
  },
  REQUEST_HEADERS_TOO_LARGE: {
    when: {
      en: "The request line and headers together exceed the gateway's limit (16 KB on the local stack; in AWS, API Gateway refuses a head over 10,240 bytes itself, with its own body and no `code`: detect it by status). Usually a long cookie or a very large custom header; nothing was run or billed.",
      ja: "リクエスト行とヘッダーの合計がゲートウェイの上限を超えています（ローカル環境は 16 KB。AWS では API Gateway が 10,240 バイトを超えるヘッダーを自ら拒否し、独自の本文で `code` はありません。ステータスで判定してください）。多くは長い Cookie や大きな独自ヘッダーが原因です。何も実行・課金されていません。",
    },
    todo: {
      en: "Remove large or unneeded headers and cookies, then resend. Put large data in the JSON body instead of headers.",
      ja: "大きなヘッダーや不要な Cookie を削除してから再送してください。大きなデータはヘッダーではなく JSON 本文で送ってください。",
    },
  },
};

/**
 * Codes that are never an HTTP status of a response (shared/errors/catalogue.ts: webhook only, status only).
 */
const NOT_A_STATUS = new Set<string>(["PARTIAL_FAILURE", "GENERATION_INTERRUPTED"]);

/** A code added to the catalogue without its own text still gets a page entry, by its status class. */
function fallbackTodo(status: number): Bilingual {
  if (status === 429 || status === 409) return RETRY_LATER;
  if (status >= 500) return BACKOFF;
  return FIX_REQUEST;
}

/** Every catalogue code with its explanation, in catalogue order (the docs pages' content). */
export function errorDocs(): ErrorDoc[] {
  return (Object.entries(catalogue) as [ErrorCode, CatalogueEntry][]).map(([code, entry]) => {
    const doc = docs[code];
    return {
      code,
      anchor: code.toLowerCase(),
      status: NOT_A_STATUS.has(code) ? undefined : entry.status,
      when: doc?.when ?? { en: entry.en, ja: entry.ja },
      todo: doc?.todo ?? fallbackTodo(entry.status),
    };
  });
}
