import type { Language } from "#shared/errors/language.ts";
import { byLanguage, type InLanguage, type TextTable } from "#shared/i18n/texts.ts";

/*
 * Every text of the site's pages, English and Japanese side by side (`shared/i18n/texts.ts`).
 * `{name}` placeholders are filled with `fill()` of the same module.
 */
const pageTexts = {
  siteName: { en: "Platen", ja: "Platen" },
  skipToContent: { en: "Skip to content", ja: "本文へスキップ" },
  languageSwitch: { en: "日本語", ja: "English" },
  languageSwitchLabel: { en: "表示言語を日本語に切り替える", ja: "Switch the language to English" },
  navHome: { en: "Home", ja: "ホーム" },
  navHistory: { en: "Output history", ja: "出力履歴" },
  navRecords: { en: "Kept records", ja: "帳簿書類" },
  navSettings: { en: "Workspace settings", ja: "ワークスペース設定" },
  navDocs: { en: "Error codes", ja: "エラーコード" },
  navApiDocs: { en: "API reference", ja: "API リファレンス" },
  logIn: { en: "Log in", ja: "ログイン" },
  notFoundTitle: { en: "Not found", ja: "見つかりません" },
  notFoundBody: {
    en: "There is no file or page at this address, or you do not have access to it.",
    ja: "このアドレスにはファイルやページがないか、アクセス権がありません。",
  },
  notFoundLogin: {
    en: "If it was shared with you, log in and open the link again.",
    ja: "共有されたファイルの場合は、ログインしてからもう一度リンクを開いてください。",
  },
  serverErrorTitle: { en: "Something went wrong", ja: "問題が発生しました" },
  requestRefusedTitle: { en: "This request cannot be answered", ja: "このリクエストには応答できません" },
  serverErrorBody: {
    en: "The page could not be shown. Try again in a moment.",
    ja: "ページを表示できませんでした。しばらくしてから再度お試しください。",
  },
  homeTitle: { en: "Platen", ja: "Platen" },
  homeBody: {
    en: "Generated documents, their history and the error reference of the Platen API.",
    ja: "生成したドキュメント、その履歴、Platen API のエラーリファレンス。",
  },
  homeDashboard: { en: "Workspace {workspace}", ja: "ワークスペース {workspace}" },
  homeOtherWorkspaces: { en: "Other workspaces:", ja: "ほかのワークスペース：" },
  homeUsageTitle: { en: "Pages this month", ja: "今月のページ数" },
  homeUsage: {
    en: "{used} of {limit} pages in {month} (plan {plan}).",
    ja: "{month} は {limit} ページ中 {used} ページを使用しました（プラン {plan}）。",
  },
  homeUsageUnlimited: {
    en: "{used} pages in {month}; the plan has no monthly allowance.",
    ja: "{month} は {used} ページを使用しました。このプランには月間の上限がありません。",
  },
  homeUsageStops: {
    en: "Generation stops when the allowance is used up.",
    ja: "上限に達すると生成は停止します。",
  },
  homeUsageOverage: {
    en: "{pages} pages over the allowance are billed as overage.",
    ja: "上限を超えた {pages} ページは超過分として請求されます。",
  },
  homeUsageMeter: { en: "Share of the monthly allowance used", ja: "月間上限の使用率" },
  homeDesignsTitle: { en: "Latest designs", ja: "最近のデザイン" },
  homeDesignsAll: { en: "All designs", ja: "すべてのデザイン" },
  homeDesignsNone: { en: "No designs yet.", ja: "デザインはまだありません。" },
  homeDocumentsTitle: { en: "Latest documents", ja: "最近のドキュメント" },
  homeDocumentsAll: { en: "All output history", ja: "すべての出力履歴" },
  homeSectionFailed: {
    en: "This part of the page could not be shown. Try again in a moment.",
    ja: "ページのこの部分を表示できませんでした。しばらくしてから再度お試しください。",
  },
  homeKeySettings: { en: "Rotate it on the settings page.", ja: "設定ページでローテーションしてください。" },
  fileTitle: { en: "File", ja: "ファイル" },
  fileName: { en: "File name", ja: "ファイル名" },
  fileStatus: { en: "Status", ja: "状態" },
  filePages: { en: "Pages", ja: "ページ数" },
  fileCreated: { en: "Created", ja: "作成日時" },
  filePassthrough: { en: "Passthrough", ja: "パススルー" },
  fileShare: { en: "Shared with", ja: "共有範囲" },
  fileSignature: { en: "Signature", ja: "署名" },
  fileSignedBy: { en: "Signed by {subject}, {time} ({level})", ja: "署名者: {subject}、{time}（{level}）" },
  fileRequest: { en: "Request", ja: "リクエスト" },
  download: { en: "Download PDF", ja: "PDF をダウンロード" },
  openPdf: { en: "Open the PDF", ja: "PDF を開く" },
  pagesTitle: { en: "Pages", ja: "ページ" },
  pagesShown: { en: "Pages 1–{shown} of {count}.", ja: "全 {count} ページ中 1〜{shown} ページ目を表示しています。" },
  pagesMore: { en: "Show {count} more pages", ja: "さらに {count} ページ表示" },
  pageAlt: { en: "Page {page} of {count}", ja: "{count} ページ中 {page} ページ目" },
  pagesProtected: {
    en: "This PDF is protected (a password or restrictions set when it was made), so its pages are not shown here. Download it and open it, with its password if it has one.",
    ja: "この PDF は作成時にパスワードまたは制限で保護されているため、ここではページを表示しません。ダウンロードして開いてください（パスワードがある場合はそのパスワードで）。",
  },
  pagesFailed: {
    en: "The pages could not be shown right now. Download the PDF, or try again in a moment.",
    ja: "現在ページを表示できません。PDF をダウンロードするか、しばらくしてから再度お試しください。",
  },
  notReadyBody: {
    en: "The file is still being generated. Reload this page in a few seconds.",
    ja: "ファイルは生成中です。数秒後にこのページを再読み込みしてください。",
  },
  preparingBody: {
    en: "The file is still being prepared. This page reloads itself until it is ready.",
    ja: "ファイルを準備しています。準備ができるまでこのページは自動的に再読み込みされます。",
  },
  failedBody: { en: "The file could not be generated.", ja: "ファイルを生成できませんでした。" },
  expiredTitle: { en: "File expired", ja: "ファイルの保存期間が終了しました" },
  expiredBody: {
    en: "This file has passed its retention period and has been deleted.",
    ja: "このファイルは保存期間を過ぎたため削除されました。",
  },
  passcodeTitle: { en: "Passcode required", ja: "パスコードが必要です" },
  passcodeBody: {
    en: "This file is protected by a passcode. Enter the passcode you were given.",
    ja: "このファイルはパスコードで保護されています。受け取ったパスコードを入力してください。",
  },
  passcodeLabel: { en: "Passcode", ja: "パスコード" },
  passcodeSubmit: { en: "Open the file", ja: "ファイルを開く" },
  passcodeWrong: { en: "The passcode is not correct.", ja: "パスコードが正しくありません。" },
  passcodeLimited: {
    en: "Too many attempts for this file. Try again in {minutes} minute(s).",
    ja: "このファイルへの試行回数が多すぎます。{minutes} 分後に再度お試しください。",
  },
  invitationsTitle: { en: "Invited users", ja: "招待したユーザー" },
  invitationsNone: { en: "Nobody is invited yet.", ja: "まだ誰も招待していません。" },
  invitationsEmail: { en: "E-mail address", ja: "メールアドレス" },
  invitationsAdd: { en: "Invite", ja: "招待する" },
  invitationsRemove: { en: "Remove", ja: "削除" },
  invitationsInvalid: { en: "Enter a valid e-mail address.", ja: "有効なメールアドレスを入力してください。" },
  invitationsForbidden: {
    en: "Your form expired or you may not change this. Reload the page and try again.",
    ja: "フォームの有効期限が切れたか、変更の権限がありません。ページを再読み込みしてやり直してください。",
  },
  historyTitle: { en: "Output history", ja: "出力履歴" },
  historyRequestTitle: { en: "Request {requestId}", ja: "リクエスト {requestId}" },
  historyWorkspace: { en: "Workspace", ja: "ワークスペース" },
  historyShow: { en: "Show", ja: "表示" },
  historySearch: { en: "Search passthrough metadata", ja: "パススルーのメタデータを検索" },
  historySearchHint: {
    en: "key=value for an exact value, or any text contained in a value.",
    ja: "完全一致は key=value、値に含まれる文字列はそのまま入力してください。",
  },
  historySearchSubmit: { en: "Search", ja: "検索" },
  historyEmpty: { en: "No requests found.", ja: "リクエストがありません。" },
  historyPartial: {
    en: "The search stopped early to keep this page fast: older requests may match too.",
    ja: "表示を速くするため検索を途中で止めました。さらに以前のリクエストも一致する可能性があります。",
  },
  historyRequest: { en: "Request", ja: "リクエスト" },
  historyCreated: { en: "Accepted", ja: "受付日時" },
  historyFiles: { en: "Files", ja: "ファイル" },
  historyStatus: { en: "Status", ja: "状態" },
  historyOlder: { en: "Older requests", ja: "以前のリクエスト" },
  historyNewest: { en: "Newest requests", ja: "最新のリクエスト" },
  historyDesign: { en: "Design", ja: "デザイン" },
  historyVersion: { en: "Version", ja: "バージョン" },
  historyCompleted: { en: "Finished", ja: "終了日時" },
  historyFailedFiles: { en: "Failed files", ja: "失敗したファイル" },
  historyError: { en: "Error", ja: "エラー" },
  historyDownloadZip: { en: "Download all files (ZIP)", ja: "すべてのファイルをダウンロード（ZIP）" },
  historyProcessing: {
    en: "The request is still being generated. Reload this page in a few seconds.",
    ja: "リクエストは生成中です。数秒後にこのページを再読み込みしてください。",
  },
  historyNoWorkspace: {
    en: "Your account is not a member of any workspace.",
    ja: "このアカウントはどのワークスペースにも所属していません。",
  },
  code: { en: "Code", ja: "コード" },
  settingsTitle: { en: "Workspace settings", ja: "ワークスペース設定" },
  settingsReadOnly: {
    en: "You can see these settings; only administrators can change them.",
    ja: "設定を閲覧できます。変更できるのは管理者だけです。",
  },
  settingsKeyTitle: { en: "Application key", ja: "アプリケーションキー" },
  settingsKeyRotated: { en: "Last rotated", ja: "最終ローテーション" },
  settingsKeyAge: { en: "{days} days ago", ja: "{days} 日前" },
  settingsKeyWarning: {
    en: "The application key was last rotated {days} days ago. Rotate it at least every 90 days.",
    ja: "アプリケーションキーは {days} 日前にローテーションされました。90 日ごとにローテーションしてください。",
  },
  settingsKeyRotate: { en: "Rotate the application key", ja: "アプリケーションキーをローテーション" },
  settingsKeyRotateHint: { en: "The current key stops working at once.", ja: "現在のキーはすぐに使えなくなります。" },
  settingsKeyNew: {
    en: "The new application key (shown only this once; store it now):",
    ja: "新しいアプリケーションキー（表示はこの一度だけです。今すぐ保存してください）:",
  },
  settingsKeyConflict: {
    en: "Someone else rotated the application key at the same time and finished first ({at}). Their key is the valid one; your rotation made no change. Ask them for the key, or rotate again.",
    ja: "別の人が同時にアプリケーションキーをローテーションし、先に完了しました（{at}）。そちらのキーが有効で、今回の操作では何も変わっていません。そのキーを確認するか、もう一度ローテーションしてください。",
  },
  settingsHooksTitle: { en: "Webhook endpoints", ja: "Webhook エンドポイント" },
  settingsHooksNone: { en: "No webhook endpoints yet.", ja: "Webhook エンドポイントはまだありません。" },
  settingsHookUrl: { en: "URL", ja: "URL" },
  settingsHookEnabled: { en: "Enabled", ja: "有効" },
  settingsHookDisabled: { en: "Disabled", ja: "無効" },
  settingsHookFilter: { en: "Designs", ja: "デザイン" },
  settingsHookAll: { en: "All designs", ja: "すべてのデザイン" },
  settingsHookSelected: { en: "Selected designs", ja: "選択したデザイン" },
  settingsHookOtherIds: { en: "Other design ids (comma-separated)", ja: "その他のデザイン ID（カンマ区切り）" },
  settingsHookMissing: {
    en: "These designs no longer exist in the workspace: {ids}. The endpoint keeps them in its list but they never match.",
    ja: "次のデザインはワークスペースに存在しません: {ids}。一覧には残りますが一致することはありません。",
  },
  settingsHookCreate: { en: "Add endpoint", ja: "エンドポイントを追加" },
  settingsHookSave: { en: "Save", ja: "保存" },
  settingsHookEdit: { en: "Edit", ja: "編集" },
  settingsHookEnable: { en: "Enable", ja: "有効にする" },
  settingsHookDisable: { en: "Disable", ja: "無効にする" },
  settingsHookDelete: { en: "Delete", ja: "削除" },
  settingsHookReveal: { en: "Show signing secret", ja: "署名シークレットを表示" },
  settingsHookRegenerate: { en: "Regenerate signing secret", ja: "署名シークレットを再生成" },
  settingsHookSecret: {
    en: "Signing secret of {url} (do not share it):",
    ja: "{url} の署名シークレット（共有しないでください）:",
  },
  settingsHookSecretNew: {
    en: "New signing secret of {url} (the previous one no longer signs):",
    ja: "{url} の新しい署名シークレット（以前のものは署名に使われなくなりました）:",
  },
  settingsHookCreated: {
    en: "Endpoint created. Its signing secret (store it now):",
    ja: "エンドポイントを作成しました。署名シークレット（今すぐ保存してください）:",
  },
  settingsHookStatus: { en: "Status", ja: "状態" },
  settingsHookActions: { en: "Actions", ja: "操作" },
  settingsMembersTitle: { en: "Members", ja: "メンバー" },
  settingsMemberEmail: { en: "E-mail", ja: "メールアドレス" },
  settingsMemberRole: { en: "Role", ja: "ロール" },
  settingsClientsTitle: { en: "OAuth clients", ja: "OAuth クライアント" },
  settingsClientsNone: { en: "No OAuth clients.", ja: "OAuth クライアントはありません。" },
  settingsClientName: { en: "Name", ja: "名前" },
  settingsClientId: { en: "Client id", ja: "クライアント ID" },
  settingsClientType: { en: "Type", ja: "種類" },
  settingsClientPublic: { en: "Public (PKCE)", ja: "パブリック（PKCE）" },
  settingsClientConfidential: { en: "Confidential", ja: "コンフィデンシャル" },
  settingsProblem: { en: "The change was not made:", ja: "変更できませんでした:" },
  loginTitle: { en: "Log in", ja: "ログイン" },
  loginEmail: { en: "E-mail address", ja: "メールアドレス" },
  loginPassword: { en: "Password", ja: "パスワード" },
  loginSubmit: { en: "Log in", ja: "ログイン" },
  loginWrong: {
    en: "The e-mail address or the password is not correct.",
    ja: "メールアドレスまたはパスワードが正しくありません。",
  },
  loginLimited: {
    en: "Too many attempts. Try again in a few minutes.",
    ja: "試行回数が多すぎます。数分後に再度お試しください。",
  },
  logOut: { en: "Log out", ja: "ログアウト" },
  crossSite: {
    en: "This form can only be sent from this site's own pages.",
    ja: "このフォームはこのサイトのページからのみ送信できます。",
  },
  docsTitle: { en: "Error codes", ja: "エラーコード" },
  docsIntro: {
    en: "Every error body of the API carries a machine-readable `code`, its HTTP status and a `docsUrl` that links to the code's entry below. Branch on `code`, never on `message`.",
    ja: "API のエラー本文には機械判読用の `code`、HTTP ステータス、下記の該当項目へのリンク `docsUrl` が含まれます。分岐には `message` ではなく `code` を使ってください。",
  },
  docsStatus: { en: "HTTP status", ja: "HTTP ステータス" },
  docsWhen: { en: "When it happens", ja: "発生する状況" },
  docsTodo: { en: "What to do", ja: "対処方法" },
  docsMessage: { en: "Message", ja: "メッセージ" },
  docsNotHttp: { en: "not an HTTP answer", ja: "HTTP 応答ではありません" },
  docsOther: { en: "日本語版", ja: "English version" },
} as const satisfies TextTable;

const statusTexts = {
  queued: { en: "Queued", ja: "待機中" },
  storing: { en: "Being stored", ja: "保存中" },
  processing: { en: "Processing", ja: "処理中" },
  done: { en: "Ready", ja: "完了" },
  completed: { en: "Completed", ja: "完了" },
  failed: { en: "Failed", ja: "失敗" },
} as const satisfies TextTable;

const shareTypeTexts = {
  workspace: { en: "Members of the workspace", ja: "ワークスペースのメンバー" },
  invited: { en: "Invited users", ja: "招待したユーザー" },
  public: { en: "Anyone with the link", ja: "リンクを知っている全員" },
} as const satisfies TextTable;

const settingsRoleTexts = {
  admin: { en: "Administrator", ja: "管理者" },
  read: { en: "Reader", ja: "閲覧者" },
} as const satisfies TextTable;

/** The site's texts in one language; statuses, share types and roles are looked up by their stored value. */
export type SiteStrings = InLanguage<typeof pageTexts> & {
  readonly status: Readonly<Record<string, string>>;
  readonly shareType: Readonly<Record<string, string>>;
  readonly settingsRole: Readonly<Record<string, string>>;
};

const pages = byLanguage(pageTexts);
const statuses = byLanguage(statusTexts);
const shareTypes = byLanguage(shareTypeTexts);
const roles = byLanguage(settingsRoleTexts);

const strings = (lang: Language): SiteStrings => ({
  ...pages[lang],
  status: statuses[lang],
  shareType: shareTypes[lang],
  settingsRole: roles[lang],
});

const siteStrings: Record<Language, SiteStrings> = { en: strings("en"), ja: strings("ja") };

/** The texts of one language. */
export const t = (lang: Language): SiteStrings => siteStrings[lang];
