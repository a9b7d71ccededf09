import { config } from "#shared/aws/config.ts";
import { listDesignsPage } from "#shared/authoring/design-list.ts";
import { parsePage } from "#shared/designs/design-pages.ts";
import { searchTemplates } from "#shared/designs/gallery-pages.ts";
import type { Language } from "#shared/errors/language.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import type { Role, SiteIdentity } from "../../identity.ts";
import { csrfField, dataTable, timeElement } from "../../page-parts.ts";
import { page } from "../../site-edge.ts";
import type { PageHandler, SiteRequest, SiteResult } from "../../site-types.ts";
import { t } from "../../strings.ts";
import { sessionGrant } from "../studio-access.ts";
import { studioText } from "../studio-text.ts";
import { chosenWorkspace, requireUser } from "../../visitor.ts";

export interface DesignsView {
  userId: string;
  workspaceId: string;
  role: Role;
  all: { workspaceId: string }[];
  /** Why a change was refused, shown above the list with the answer's status. */
  problem?: string;
}

/** The workspace picker, when the visitor belongs to more than one (as on the other member pages). */
async function workspacePicker(lang: Language, v: DesignsView): Promise<Html | string> {
  if (v.all.length < 2) return "";
  const s = t(lang);
  const options = await Promise.all(
    v.all.map(async (m) => {
      const name = (await getWorkspace(m.workspaceId))?.name ?? m.workspaceId;
      const selected = m.workspaceId === v.workspaceId ? html` selected` : "";
      return html`<option value="${m.workspaceId}"${selected}>${name}</option>`;
    }),
  );
  return html`<form method="get" action="/designs">
  <label for="workspace">${s.historyWorkspace}</label>
  <select id="workspace" name="workspace">${options}</select>
  <button type="submit" class="secondary">${s.historyShow}</button>
</form>`;
}

/** The three ways to start a design (ADMIN only): blank, a gallery copy, an uploaded bundle zip. */
async function createSection(lang: Language, v: DesignsView): Promise<Html> {
  const s = studioText(lang);
  const csrf = await csrfField(v.userId);
  // The gallery's first page: the gallery page itself finds and copies any other template.
  const { templates, next } = await searchTemplates({});
  const hidden = html`${csrf}
<input type="hidden" name="workspace" value="${v.workspaceId}">`;
  const fromTemplate = templates.length
    ? html`<form method="post" action="/designs" id="create-template" class="create">
${hidden}
<input type="hidden" name="kind" value="template">
<h3>${s.createFromTemplate}</h3>
<label for="create-template-id">${s.createTemplate}</label>
<select id="create-template-id" name="templateId">${templates.map((tpl) => html`<option value="${tpl.id}">${tpl.label}</option>`)}</select>
<p><button type="submit">${s.createTemplateButton}</button></p>
${next ? html`<p><a href="/templates">${s.createTemplateMore}</a></p>` : ""}
</form>`
    : "";
  return html`<section aria-labelledby="create-title">
<h2 id="create-title">${s.createTitle}</h2>
<div class="create-grid">
<form method="post" action="/designs" id="create-blank" class="create">
${hidden}
<input type="hidden" name="kind" value="blank">
<h3>${s.createBlank}</h3>
<label for="create-label">${s.createLabel}</label>
<input type="text" id="create-label" name="label" value="${s.starterLabel}" required maxlength="200">
<p><button type="submit">${s.createBlankButton}</button></p>
</form>
${fromTemplate}
<form method="post" action="/designs" id="create-upload" class="create" enctype="multipart/form-data">
${hidden}
<input type="hidden" name="kind" value="upload">
<h3>${s.createUpload}</h3>
<label for="create-file">${s.createUploadFile}</label>
<input type="file" id="create-file" name="bundle" accept=".zip,application/zip" required>
<p><button type="submit">${s.createUploadButton}</button></p>
</form>
</div>
</section>`;
}

/** The designs table: thumbnail, name (to the editor), latest version, last change and who made it. */
async function designsTable(req: SiteRequest, v: DesignsView): Promise<Html> {
  const s = studioText(req.lang);
  const list = await listDesignsPage(
    v.workspaceId,
    { page: parsePage(req.query("page")), archived: false },
    config().baseUrl,
  );
  if (!list.designs.length) return html`<p id="designs">${s.designsNone}</p>`;
  const rows = list.designs.map(
    (d) => html`<tr data-design="${d.id}">
  <td><img class="thumb" src="/designs/${d.id}/thumbnail?version=${d.latestVersion}" alt="${fill(s.thumbnailOf, { label: d.label })}" loading="lazy" width="120"></td>
  <td><a href="/designs/${d.id}">${d.label}</a>${d.hasDraft ? html` <span class="badge">${s.draftBadge}</span>` : ""}</td>
  <td>${d.latestVersion}</td>
  <td>${timeElement(d.updatedAt)}</td>
  <td>${d.updatedBy ?? "–"}</td>
  <td>
    <a href="/designs/${d.id}">${s.openEditor}</a> · <a href="/designs/${d.id}/versions">${s.openHistory}</a>
    ${v.role === "admin" ? html` · <a href="/designs/${d.id}/archive" data-action="archive">${s.archive}</a>` : ""}
  </td>
</tr>`,
  );
  const pager =
    list.totalPages > 1
      ? html`<nav class="pager" aria-label="${s.designsTitle}">${Array.from({ length: list.totalPages }, (_, i) =>
          i + 1 === list.page
            ? html`<span aria-current="page">${i + 1}</span>`
            : html`<a href="/designs?workspace=${v.workspaceId}&amp;page=${i + 1}">${i + 1}</a>`,
        )}</nav>`
      : "";
  return html`${dataTable(
    [s.colThumbnail, s.colDesign, s.colLatest, s.colChanged, s.colChangedBy, s.colActions],
    rows,
    { id: "designs" },
  )}
${pager}`;
}

/** The designs page of one workspace (also the answer of a create that was refused). */
export async function renderDesigns(
  req: SiteRequest,
  identity: SiteIdentity,
  v: DesignsView,
  status = 200,
): Promise<SiteResult> {
  const s = studioText(req.lang);
  const problem = v.problem ? html`<p class="alert" role="alert" id="flash">${v.problem}</p>` : "";
  const body = html`${await workspacePicker(req.lang, v)}
${problem}
${v.role === "admin" ? await createSection(req.lang, v) : html`<p class="notice">${s.designsReadOnly}</p>`}
<section aria-labelledby="list-title">
<h2 id="list-title">${s.designsTitle}</h2>
${await designsTable(req, v)}
</section>`;
  return { status, page: page(req, identity, true, s.designsTitle, body) };
}

/** GET `/designs`: the workspace's designs; members see, ADMINs also create and archive. */
export const designsPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const { all, chosen } = await chosenWorkspace(req, identity, user.userId);
    if (!chosen) {
      const s = studioText(req.lang);
      return {
        status: 200,
        page: page(req, identity, true, s.designsTitle, html`<p>${t(req.lang).historyNoWorkspace}</p>`),
      };
    }
    // The read rule of the design API for a session: any member.
    await sessionGrant(identity, user.userId, chosen.workspaceId, "designs:read");
    return renderDesigns(req, identity, {
      userId: user.userId,
      workspaceId: chosen.workspaceId,
      role: chosen.role,
      all,
    });
  };
