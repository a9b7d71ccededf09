import type { TextTable } from "#shared/i18n/texts.ts";

/** The texts of the webhook routes' details, both languages side by side. */
export const webhookText = {
  urlRequired: { en: "url is required", ja: "url は必須です" },
  urlNotAllowed: { en: "url is not allowed: {reason}", ja: "この url は使用できません: {reason}" },
  targetsNotArray: { en: "targetDesignIds must be an array", ja: "targetDesignIds は配列である必要があります" },
  tooManyTargets: {
    en: "targetDesignIds may hold at most {max} ids",
    ja: "targetDesignIds に指定できる ID は最大 {max} 件です",
  },
  notDesignId: { en: "must be a design id", ja: "デザイン ID である必要があります" },
  filterType: {
    en: "designFilterType must be all or selected",
    ja: "designFilterType は all または selected である必要があります",
  },
  enabledBoolean: { en: "enabled must be true or false", ja: "enabled は true または false である必要があります" },
  endpointNotFound: { en: "webhook endpoint not found", ja: "Webhook エンドポイントが見つかりません" },
  urlTaken: { en: "an endpoint with this url already exists", ja: "この url のエンドポイントは既に存在します" },
  urlOfAnother: {
    en: "this url is already endpoint {endpointId} (designFilterType {filter}); change that endpoint with PATCH {path}",
    ja: "この url は既にエンドポイント {endpointId}（designFilterType {filter}）のものです。そのエンドポイントを PATCH {path} で変更してください",
  },
  deliveryNotFound: { en: "delivery not found", ja: "配信が見つかりません" },
  deliveryPending: {
    en: "delivery is still pending (next attempt {next}); redeliver it once it has finished",
    ja: "配信はまだ処理中です（次回の試行: {next}）。完了してから再配信してください",
  },
  queued: { en: "queued", ja: "キュー投入済み" },
  endpointDeleted: { en: "the delivery's endpoint was deleted", ja: "この配信のエンドポイントは削除されています" },
  endpointDisabled: {
    en: "the delivery's endpoint is disabled; enable it first",
    ja: "この配信のエンドポイントは無効になっています。先に有効にしてください",
  },
  deliveryChanged: {
    en: "the delivery changed meanwhile; try again",
    ja: "処理中に配信が変更されました。再試行してください",
  },
} as const satisfies TextTable;
