import type { TextTable } from "#shared/i18n/texts.ts";

/** The texts of the access rules' details (401 and 403), both languages side by side. */
export const accessText = {
  designApiNoAppKey: {
    en: "the design API takes a Bearer access token or a login session, not an appkey",
    ja: "デザイン API は appkey ではなく、Bearer アクセストークンまたはログインセッションで呼び出してください",
  },
  managementNoAppKey: {
    en: "management routes take a Bearer access token or a login session, not an appkey",
    ja: "管理 API は appkey ではなく、Bearer アクセストークンまたはログインセッションで呼び出してください",
  },
  lacksScope: {
    en: "the access token lacks the {scopes} scope",
    ja: "アクセストークンに {scopes} スコープがありません",
  },
  or: { en: " or ", ja: " または " },
  notMember: {
    en: "the user is not a member of this workspace",
    ja: "このユーザーはこのワークスペースのメンバーではありません",
  },
  needsAdmin: { en: "this operation needs the ADMIN role", ja: "この操作には ADMIN ロールが必要です" },
  clientHasNoRole: {
    en: "a client-credentials token has no end user, so no workspace role",
    ja: "クライアントクレデンシャルのトークンにはエンドユーザーがいないため、ワークスペースのロールがありません",
  },
  sessionNamesPathWorkspace: {
    en: "a login session must name the workspace in the path",
    ja: "ログインセッションではパスにワークスペースを指定する必要があります",
  },
  secretFirstPartyOnly: {
    en: "the signing secret can be read only in a first-party login session",
    ja: "署名シークレットは Platen 自身のページのログインセッションでのみ参照できます",
  },
  sessionInvalid: { en: "the login session is invalid or expired", ja: "ログインセッションが無効か、期限切れです" },
  sessionNamesWorkspace: {
    en: "a login session must name the workspace (the path's workspaceId, or X-Workspace-Id on the design API)",
    ja: "ログインセッションではワークスペースを指定する必要があります（パスの workspaceId、デザイン API では X-Workspace-Id）",
  },
  csrfMissing: { en: "the CSRF token is missing or expired", ja: "CSRF トークンがないか、期限切れです" },
  sessionFirstPartyOnly: {
    en: "a login session may change settings only from the service's own pages",
    ja: "ログインセッションで設定を変更できるのは Platen 自身のページからのみです",
  },
} as const satisfies TextTable;
