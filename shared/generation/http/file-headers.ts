/**
 * Download headers shared by the sync endpoints and the download endpoints (OpenAPI generateSyncSingle,
 * downloadRequest, downloadFile): RFC 6266 Content-Disposition with an ASCII fallback and an RFC 5987
 * `filename*` for non-ASCII names, and the URL-encoded X-File-Mapping.
 */
const rfc5987 = (value: string) =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Printable ASCII minus the characters that break a quoted-string. */
const asciiFallback = (value: string) => value.replace(/[^\x20-\x7e]|["\\%]/g, "_");

export function contentDisposition(fileName: string): string {
  return `attachment; filename="${asciiFallback(fileName)}"; filename*=UTF-8''${rfc5987(fileName)}`;
}

/**
 * OpenAPI generateSyncMultiple, downloadRequest: the ZIP's name is `<template name>_<requestId>.zip`,
 * URL-encoded.
 */
export function zipContentDisposition(templateName: string, requestId: string): string {
  const encoded = rfc5987(`${templateName}_${requestId}.zip`);
  return `attachment; filename="${encoded}"; filename*=UTF-8''${encoded}`;
}

/** OpenAPI generateSyncSingle: URL-encoded JSON array of file entries; clients URL-decode then parse. */
export const fileMappingHeader = (entries: unknown[]): string => encodeURIComponent(JSON.stringify(entries));

/** ZIP entries are named by the same rule, and zip/ sits below the HTTP edge: the rule lives there. */
export { pdfFileName } from "#shared/zip/entry-names.ts";
