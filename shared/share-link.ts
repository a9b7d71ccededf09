/**
 * How a generated file is shared (OpenAPI generateAsyncSingle): read by generation (planning, sync answers)
 * and webhooks (payloads), so it sits below both.
 */
export const shareTypes = { "01": "workspace", "02": "invited", "03": "public" } as const;
export type ShareType = (typeof shareTypes)[keyof typeof shareTypes];

/** OpenAPI generateAsyncSingle (response side). `passcode` only right after generation. */
export interface Share {
  shareType: ShareType;
  url: string;
  passcodeEnabled: boolean;
  passcode?: string;
}

/** OpenAPI generateAsyncSingle: `{site}/file/<requestId>/<fileId>` for every share type. */
export const shareUrl = (siteUrl: string, requestId: string, fileId: string) =>
  `${siteUrl}/file/${encodeURIComponent(requestId)}/${encodeURIComponent(fileId)}`;
