import { byLanguage, type TextTable } from "#shared/i18n/texts.ts";

/** Words of the login and consent screens, English and Japanese (picked by Accept-Language). */
const screenTexts = {
  loginTitle: { en: "Sign in to Platen", ja: "Platen にサインイン" },
  email: { en: "E-mail", ja: "メールアドレス" },
  password: { en: "Password", ja: "パスワード" },
  signIn: { en: "Sign in", ja: "サインイン" },
  wrongCredentials: {
    en: "The e-mail address or password is wrong.",
    ja: "メールアドレスまたはパスワードが正しくありません。",
  },
  tooManyAttempts: {
    en: "Too many sign-in attempts. Wait a few minutes and try again.",
    ja: "サインインの試行回数が多すぎます。数分待ってから再度お試しください。",
  },
  consentTitle: { en: "Allow access", ja: "アクセスの許可" },
  asks: {
    en: "{client} asks for access to your Platen account:",
    ja: "{client} があなたの Platen アカウントへのアクセスを求めています:",
  },
  workspace: { en: "Workspace", ja: "ワークスペース" },
  noWorkspace: {
    en: "You are not a member of any workspace, so there is nothing to grant access to.",
    ja: "どのワークスペースのメンバーでもないため、許可できるアクセスがありません。",
  },
  chooseWorkspace: { en: "Choose one of your workspaces.", ja: "あなたのワークスペースを選択してください。" },
  allow: { en: "Allow", ja: "許可" },
  deny: { en: "Deny", ja: "拒否" },
  signedInAs: { en: "Signed in as {email}", ja: "{email} としてサインイン中" },
  expired: {
    en: "This sign-in has expired. Start again from the application.",
    ja: "このサインイン手続きは期限切れです。アプリからやり直してください。",
  },
} as const satisfies TextTable;

/** What each scope lets the client do (see shared/identity/README.md#scopes). */
const scopeTexts = {
  openid: { en: "Know your user id", ja: "ユーザー ID の参照" },
  profile: { en: "See your name and e-mail address", ja: "氏名とメールアドレスの参照" },
  "designs:read": { en: "Read your designs", ja: "デザインの参照" },
  "records:read": { en: "Search and download your kept records", ja: "保存した取引記録の検索とダウンロード" },
  "designs:write": { en: "Change your designs", ja: "デザインの変更" },
  "templates:read": { en: "Read templates", ja: "テンプレートの参照" },
  "templates:write": { en: "Change templates", ja: "テンプレートの変更" },
  "pdf:generate": { en: "Generate PDFs and read their results", ja: "PDF の生成と結果の参照" },
} as const satisfies TextTable;

/** The screens' words in each language. */
export const screenText = byLanguage(screenTexts);

/** Each scope's description in each language, looked up by the scope a client asked for. */
export const scopeText: Record<keyof typeof screenText, Readonly<Record<string, string>>> = byLanguage(scopeTexts);
