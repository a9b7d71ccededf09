import { systemClock } from "#shared/clock.ts";
import { getJob, listFileRecords, liveRequestDeps } from "#shared/generation/store/index.ts";
import { requestStatus, type StatusBody } from "#shared/generation/reads/index.ts";
import { requestArchiveAnswer } from "#shared/generation/http/index.ts";
import type { Language } from "#shared/errors/language.ts";
import { isId } from "#shared/ids.ts";
import { listOutputHistory, type RequestSummary } from "#shared/site/history-query.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { fill } from "#shared/i18n/texts.ts";
import { type Html, html } from "#shared/html/html.ts";
import type { SiteIdentity } from "../identity.ts";
import { notFound, page } from "../site-edge.ts";
import type { PageHandler, SiteRequest } from "../site-types.ts";
import { dataTable, errorCodeLink, formatTime, timeElement } from "../page-parts.ts";
import { t } from "../strings.ts";
import { chosenWorkspace, requireUser, roleOf } from "../visitor.ts";

const fileLink = (requestId: string, f: { fileId: string; fileName: string }) =>
  html`<a href="/file/${requestId}/${f.fileId}">${f.fileName}</a>`;

function summaryRow(lang: Language, r: RequestSummary): Html {
  const s = t(lang);
  const files = r.files.map(
    (f) => html`<li>${fileLink(r.requestId, f)}${f.status === "failed" ? html` (${s.status.failed})` : ""}</li>`,
  );
  return html`<tr>
  <td><a href="/output-history/${r.requestId}"><code>${r.requestId}</code></a></td>
  <td>${timeElement(r.createdAt)}</td>
  <td>${s.status[r.status] ?? r.status}</td>
  <td><ul>${files}</ul></td>
</tr>`;
}

/** The search form; `workspace` rides along so searching never changes the workspace shown. */
export function searchForm(
  lang: Language,
  workspaces: { id: string; name: string }[],
  current: string,
  search: string,
): Html {
  const s = t(lang);
  const options = workspaces.map(
    (w) => html`<option value="${w.id}"${w.id === current ? html` selected` : ""}>${w.name}</option>`,
  );
  const picker =
    workspaces.length > 1
      ? html`<label for="workspace">${s.historyWorkspace}</label>
  <select id="workspace" name="workspace">${options}</select>`
      : html`<input type="hidden" name="workspace" value="${current}">`;
  return html`<form method="get" action="/output-history" role="search">
  ${picker}
  <label for="q">${s.historySearch}</label>
  <input type="search" id="q" name="q" value="${search}" aria-describedby="q-hint" maxlength="300">
  <p id="q-hint" class="muted">${s.historySearchHint}</p>
  <p><button type="submit">${s.historySearchSubmit}</button></p>
</form>`;
}

/** The requests of one page of the history, newest first. */
export function historyTable(lang: Language, caption: string | undefined, requests: RequestSummary[]): Html {
  const s = t(lang);
  if (!requests.length) return html`<p id="history">${s.historyEmpty}</p>`;
  return dataTable(
    [s.historyRequest, s.historyCreated, s.historyStatus, s.historyFiles],
    requests.map((r) => summaryRow(lang, r)),
    { id: "history", caption },
  );
}

/** GET `/output-history`: the workspace's recent requests, paged, searchable by passthrough metadata. */
export const outputHistoryList =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const s = t(req.lang);
    const { all, chosen } = await chosenWorkspace(req, identity, user.userId);
    if (!chosen)
      return { status: 200, page: page(req, identity, true, s.historyTitle, html`<p>${s.historyNoWorkspace}</p>`) };
    const workspaces = await Promise.all(
      all.map(async (m) => ({ id: m.workspaceId, name: (await getWorkspace(m.workspaceId))?.name ?? m.workspaceId })),
    );
    const search = (req.query("q") ?? "").slice(0, 300);
    const history = await listOutputHistory(chosen.workspaceId, { cursor: req.query("after"), search }, systemClock);
    const query = (extra: Record<string, string>) =>
      new URLSearchParams({ workspace: chosen.workspaceId, ...(search && { q: search }), ...extra }).toString();
    const caption = workspaces.find((w) => w.id === chosen.workspaceId)?.name;
    const newest = req.query("after") ? html`<a href="/output-history?${query({})}">${s.historyNewest}</a>` : "";
    const older = history.next
      ? html`<a rel="next" href="/output-history?${query({ after: history.next })}">${s.historyOlder}</a>`
      : "";
    const partial = history.partial ? html`<p class="notice" id="history-partial">${s.historyPartial}</p>` : "";
    const body = html`${searchForm(req.lang, workspaces, chosen.workspaceId, search)}
${partial}${historyTable(req.lang, caption, history.requests)}
<nav class="pager" aria-label="${s.historyTitle}">${newest}${older}</nav>`;
    return { status: 200, page: page(req, identity, true, s.historyTitle, body) };
  };

/** The workspace a request belongs to (job record while it lives, else its file records). */
async function workspaceOfRequest(requestId: string): Promise<string | undefined> {
  if (!isId(requestId)) return undefined;
  return (await getJob(requestId))?.workspaceId ?? (await listFileRecords(requestId))[0]?.workspaceId;
}

/** The request as the status endpoint reports it: facts, then its error, files and failed files. */
export function statusBody(lang: Language, st: StatusBody): Html {
  const s = t(lang);
  const facts = html`<dl class="facts">
  <dt>${s.historyStatus}</dt><dd id="request-status">${s.status[st.status] ?? st.status}</dd>
  <dt>${s.historyDesign}</dt><dd><code>${st.designId}</code></dd>
  <dt>${s.historyVersion}</dt><dd>${st.version ?? "–"}</dd>
  <dt>${s.historyCreated}</dt><dd>${formatTime(st.createdAt)}</dd>
  <dt>${s.historyCompleted}</dt><dd>${formatTime(st.completedAt)}</dd>
</dl>`;
  const processing =
    st.status === "processing" || st.status === "queued"
      ? html`<p class="notice" role="status">${s.historyProcessing}</p>`
      : "";
  const failure = st.error && html`${s.historyError}: ${errorCodeLink(lang, st.error.code)} ${st.error.message}`;
  const error = failure ? html`<p class="alert" role="alert" id="request-error">${failure}</p>` : "";
  return html`${facts}
${processing}
${error}
${requestFiles(lang, st)}
${failedFiles(lang, st)}`;
}

function requestFiles(lang: Language, st: StatusBody): Html | string {
  const s = t(lang);
  if (!st.files.length) return "";
  const items = st.files.map(
    (f) => html`<li>${fileLink(st.requestId, f)} (${s.filePages}: ${f.pageCount ?? "–"})</li>`,
  );
  const zip = `/output-history/${st.requestId}/download`;
  return html`<h2>${s.historyFiles}</h2>
<ul id="request-files">${items}</ul>
<p><a class="button" id="download-zip" href="${zip}" download>${s.historyDownloadZip}</a></p>`;
}

function failedFiles(lang: Language, st: StatusBody): Html | string {
  const s = t(lang);
  if (!st.failedFiles?.length) return "";
  const rows = st.failedFiles.map(
    (f) => html`<tr><td>${f.fileName}</td><td>${errorCodeLink(lang, f.code)}</td><td>${f.message}</td></tr>`,
  );
  return html`<h2>${s.historyFailedFiles}</h2>
<table id="failed-files">
<thead>
  <tr><th scope="col">${s.fileName}</th><th scope="col">${s.code}</th><th scope="col">${s.docsMessage}</th></tr>
</thead>
<tbody>${rows}</tbody>
</table>`;
}

/** GET `/output-history/{requestId}`: the request as the status endpoint reports it (members of its workspace only). */
export const outputHistoryRequest =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const requestId = req.params.requestId ?? "";
    const workspaceId = await workspaceOfRequest(requestId);
    if (!(await roleOf(identity, workspaceId, user.userId))) return notFound(req, identity, true);
    const status = await requestStatus(requestId, workspaceId!, liveRequestDeps);
    const title = fill(t(req.lang).historyRequestTitle, { requestId });
    return { status: 200, page: page(req, identity, true, title, statusBody(req.lang, status)) };
  };

/** GET `/output-history/{requestId}/download`: the request's ZIP, as GET /v1/file/download/{requestId} gives it. */
export const outputHistoryZip =
  (identity: SiteIdentity): PageHandler =>
  async (req: SiteRequest) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const requestId = req.params.requestId ?? "";
    const workspaceId = await workspaceOfRequest(requestId);
    if (!(await roleOf(identity, workspaceId, user.userId))) return notFound(req, identity, true);
    // The API's download rules and size threshold: a large ZIP comes from S3 (302), as there.
    const answer = await requestArchiveAnswer(requestId, workspaceId!, liveRequestDeps);
    if ("location" in answer)
      return { status: 302, redirect: answer.location, headers: { "Cache-Control": "no-store" } };
    return {
      status: 200,
      contentType: "application/zip",
      stream: answer.stream,
      contentLength: answer.contentLength,
      headers: { "Content-Disposition": answer.contentDisposition },
    };
  };
