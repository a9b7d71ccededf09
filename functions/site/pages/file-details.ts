import type { Language } from "#shared/errors/language.ts";
import type { FileRecord } from "#shared/generation/store/index.ts";
import { type Html, html } from "#shared/html/html.ts";
import { errorCodeLink, timeElement } from "../page-parts.ts";
import { t } from "../strings.ts";
import { fill } from "#shared/i18n/texts.ts";
import type { FileSignature } from "#shared/signing/file-signature.ts";

function passthroughList(passthrough: Record<string, string | number> | undefined): Html | string {
  const entries = Object.entries(passthrough ?? {});
  if (!entries.length) return "–";
  return html`<dl class="facts">
  ${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${String(v)}</dd>`)}
</dl>`;
}

/** "Signed by <subject>, <time> (B-T)": the subject as text, the time as the page's other times are shown. */
function signatureFact(lang: Language, signature: FileSignature): Html {
  const s = t(lang);
  const [before, rest = ""] = s.fileSignedBy.split("{time}");
  return html`<dt>${s.fileSignature}</dt><dd id="file-signature">${fill(before!, { subject: signature.subject })}${timeElement(signature.signedAt)}${fill(rest, { level: signature.level })}</dd>`;
}

/**
 * What the file page shows of a file: facts, then the download and open links and its `pages`
 * (the page images section of page-image-views.ts), or why there are none.
 */
export function fileDetails(lang: Language, file: FileRecord, base: string, pages: Html | string = ""): Html {
  const s = t(lang);
  const facts = html`<dl class="facts">
  <dt>${s.fileName}</dt><dd>${file.fileName}</dd>
  <dt>${s.fileStatus}</dt><dd id="file-status">${s.status[file.status] ?? file.status}</dd>
  <dt>${s.filePages}</dt><dd>${file.pageCount ?? "–"}</dd>
  <dt>${s.fileCreated}</dt><dd>${timeElement(file.createdAt)}</dd>
  <dt>${s.fileShare}</dt><dd>${s.shareType[file.shareType] ?? file.shareType}</dd>
  <dt>${s.filePassthrough}</dt><dd>${passthroughList(file.passthrough)}</dd>
  ${file.signature && file.status === "done" ? signatureFact(lang, file.signature) : ""}
</dl>`;
  if (file.status === "failed") {
    const code = file.errorCode ?? "FILE_GENERATION_FAILED";
    return html`${facts}
<p class="alert" role="alert">${s.failedBody} ${errorCodeLink(lang, code)} ${file.errorMessage ?? ""}</p>`;
  }
  if (file.status !== "done") {
    return html`${facts}
<p class="notice" role="status">${file.status === "storing" ? s.preparingBody : s.notReadyBody}</p>`;
  }
  return html`${facts}
<p>
  <a class="button" id="download" href="${base}/download" download>${s.download}</a>
  <a id="open-pdf" href="${base}/preview">${s.openPdf}</a>
</p>
${pages}`;
}
