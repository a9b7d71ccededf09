import type { FileRecord } from "#shared/generation/file-store.ts";
import type { Language } from "#shared/errors/language.ts";
import { type Html, html } from "#shared/html/html.ts";
import { t } from "../strings.ts";

/** `2026-11-24T05:30:12.345Z` → `2026-11-24 05:30:12 UTC` (the same for every reader). */
export const formatTime = (iso: string | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : "–");

export const docsHref = (lang: Language, code: string) =>
  `${lang === "ja" ? "/ja" : ""}/docs/errors#${code.toLowerCase()}`;

function passthroughList(passthrough: Record<string, string | number> | undefined): Html | string {
  const entries = Object.entries(passthrough ?? {});
  if (!entries.length) return "–";
  return html`<dl class="facts">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${String(v)}</dd>`)}</dl>`;
}

/** What the file page shows of a file: facts, then the preview and download link, or why there are none. */
export function fileDetails(lang: Language, file: FileRecord, base: string): Html {
  const s = t(lang);
  const facts = html`<dl class="facts">
<dt>${s.fileName}</dt><dd>${file.fileName}</dd>
<dt>${s.fileStatus}</dt><dd id="file-status">${s.status[file.status] ?? file.status}</dd>
<dt>${s.filePages}</dt><dd>${file.pageCount ?? "–"}</dd>
<dt>${s.fileCreated}</dt><dd><time datetime="${file.createdAt}">${formatTime(file.createdAt)}</time></dd>
<dt>${s.fileShare}</dt><dd>${s.shareType[file.shareType] ?? file.shareType}</dd>
<dt>${s.filePassthrough}</dt><dd>${passthroughList(file.passthrough)}</dd>
</dl>`;
  if (file.status === "failed") {
    const code = file.errorCode ?? "FILE_GENERATION_FAILED";
    return html`${facts}<p class="alert" role="alert">${s.failedBody} <a href="${docsHref(lang, code)}"><code>${code}</code></a> ${file.errorMessage ?? ""}</p>`;
  }
  if (file.status !== "done") return html`${facts}<p class="notice" role="status">${s.notReadyBody}</p>`;
  return html`${facts}
<p><a class="button" id="download" href="${base}/download" download>${s.download}</a></p>
<iframe class="preview" id="preview" title="${s.previewTitle}" src="${base}/preview"></iframe>
<p class="muted">${s.previewFallback}</p>`;
}
