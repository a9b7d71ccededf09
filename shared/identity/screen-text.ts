import type { Language } from "#shared/errors/language.ts";

/** Words of the login and consent screens, English and Japanese (picked by Accept-Language). */
export const screenText = {
  en: {
    loginTitle: "Sign in to Platen",
    email: "E-mail",
    password: "Password",
    signIn: "Sign in",
    wrongCredentials: "The e-mail address or password is wrong.",
    tooManyAttempts: "Too many sign-in attempts. Wait a few minutes and try again.",
    consentTitle: "Allow access",
    asks: (client: string) => `${client} asks for access to your Platen account:`,
    workspace: "Workspace",
    noWorkspace: "You are not a member of any workspace, so there is nothing to grant access to.",
    chooseWorkspace: "Choose one of your workspaces.",
    allow: "Allow",
    deny: "Deny",
    signedInAs: (email: string) => `Signed in as ${email}`,
  },
  ja: {
    loginTitle: "Platen にサインイン",
    email: "メールアドレス",
    password: "パスワード",
    signIn: "サインイン",
    wrongCredentials: "メールアドレスまたはパスワードが正しくありません。",
    tooManyAttempts: "サインインの試行回数が多すぎます。数分待ってから再度お試しください。",
    consentTitle: "アクセスの許可",
    asks: (client: string) => `${client} があなたの Platen アカウントへのアクセスを求めています:`,
    workspace: "ワークスペース",
    noWorkspace: "どのワークスペースのメンバーでもないため、許可できるアクセスがありません。",
    chooseWorkspace: "あなたのワークスペースを選択してください。",
    allow: "許可",
    deny: "拒否",
    signedInAs: (email: string) => `${email} としてサインイン中`,
  },
} as const satisfies Record<Language, unknown>;

/** What each scope lets the client do (spec 5.2). */
export const scopeText: Record<Language, Record<string, string>> = {
  en: {
    openid: "Know your user id",
    profile: "See your name and e-mail address",
    "designs:read": "Read your designs",
    "designs:write": "Change your designs",
    "templates:read": "Read templates",
    "templates:write": "Change templates",
    "pdf:generate": "Generate PDFs and read their results",
  },
  ja: {
    openid: "ユーザー ID の参照",
    profile: "氏名とメールアドレスの参照",
    "designs:read": "デザインの参照",
    "designs:write": "デザインの変更",
    "templates:read": "テンプレートの参照",
    "templates:write": "テンプレートの変更",
    "pdf:generate": "PDF の生成と結果の参照",
  },
};
