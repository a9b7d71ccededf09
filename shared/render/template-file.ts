/**
 * The generated file's own identity as a template reads it: `{{ file.share.url | barcode: "qrcode" }}`
 * (shared/render/README.md#what-a-template-sees). Generation knows it before templating (ids and share URLs
 * are planned first); previews and thumbnails have no file and get `previewFile`.
 */
export interface TemplateFile {
  /** The file's id (OpenAPI generateAsyncSingle `fileId`). */
  id: string;
  /** The request's `fileName`. */
  name: string;
  /** The file's view on the site: what `share.url` of the answer and of webhooks says. */
  share: { url: string };
  /** True only in previews and thumbnails, where no file exists and the URL below is a placeholder. */
  preview: boolean;
}

/**
 * Where a preview's or thumbnail's `file.share.url` points: `.invalid` never resolves, and the path says why, so a
 * QR code scanned off a thumbnail explains itself instead of opening someone else's file.
 */
export const PREVIEW_SHARE_URL = "https://example.invalid/preview";

/** The stand-in identity of a document that is not a generated file. */
export const previewFile = (name: string): TemplateFile => ({
  id: "preview",
  name,
  share: { url: PREVIEW_SHARE_URL },
  preview: true,
});
