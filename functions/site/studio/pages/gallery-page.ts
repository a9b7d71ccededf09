import { getThumbnail } from "#shared/designs/design-store.ts";
import { type GalleryTemplate, getTemplate, withdrawTemplate } from "#shared/designs/gallery.ts";
import { searchTemplates } from "#shared/designs/gallery-pages.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import type { Role, SiteIdentity } from "../../identity.ts";
import { csrfAccepted, csrfField } from "../../page-parts.ts";
import { formRefused, notFound, page } from "../../site-edge.ts";
import type { PageHandler, SiteRequest } from "../../site-types.ts";
import { pngAnswer } from "../binary-answers.ts";
import { admitRate, auditDesign, sessionGrant } from "../studio-access.ts";
import { studioText } from "../studio-text.ts";
import { copyTemplate } from "../template-copy.ts";
import { requireUser } from "../../visitor.ts";

type Texts = ReturnType<typeof studioText>;

/** What the visitor may do with a template: copy into their ADMIN workspaces, withdraw their own. */
interface GalleryVisitor {
  userId?: string;
  /** The workspaces where the visitor is ADMIN, with their names (the copy form's choices). */
  adminOf: { workspaceId: string; name: string }[];
  csrf?: Html;
}

async function galleryVisitor(identity: SiteIdentity, req: SiteRequest): Promise<GalleryVisitor> {
  const userId = await identity.userOf(req.header("cookie"));
  if (!userId) return { adminOf: [] };
  const memberships: { workspaceId: string; role: Role }[] = await identity.workspacesOf(userId);
  const adminOf = await Promise.all(
    memberships
      .filter((m) => m.role === "admin")
      .map(async (m) => ({
        workspaceId: m.workspaceId,
        name: (await getWorkspace(m.workspaceId))?.name ?? m.workspaceId,
      })),
  );
  return { userId, adminOf, csrf: await csrfField(userId) };
}

/**
 * The search form: text and one tag, a GET form so results have an address. The tag list offers
 * the tags of the templates shown (the gallery is read a page at a time, never whole).
 */
function searchForm(s: Texts, q: string, tag: string, shown: GalleryTemplate[]): Html {
  const tags = [...new Set(shown.flatMap((t) => t.tags))].sort();
  return html`<form method="get" action="/templates" id="gallery-search" class="inline-fields" role="search">
<div>
  <label for="gallery-q">${s.gallerySearch}</label>
  <input type="search" id="gallery-q" name="q" value="${q}" maxlength="200">
</div>
<div>
  <label for="gallery-tag">${s.galleryTag}</label>
  <input type="search" id="gallery-tag" name="tag" value="${tag}" maxlength="40" list="gallery-tags" placeholder="${s.galleryAnyTag}">
  <datalist id="gallery-tags">${tags.map((t) => html`<option value="${t}">`)}</datalist>
</div>
<p><button type="submit">${s.galleryShow}</button></p>
</form>`;
}

/** "Use this template" for a visitor with an ADMIN workspace; otherwise what they would need. */
function useForm(s: Texts, v: GalleryVisitor, t: GalleryTemplate, loginHref: string): Html {
  if (!v.userId) return html`<p><a href="${loginHref}">${s.galleryLogin}</a></p>`;
  if (!v.adminOf.length) return html`<p class="muted">${s.galleryNeedsAdmin}</p>`;
  const choice =
    v.adminOf.length === 1
      ? html`<input type="hidden" name="workspace" value="${v.adminOf[0]!.workspaceId}">`
      : html`<label for="use-ws-${t.id}">${s.galleryInto}</label>
<select id="use-ws-${t.id}" name="workspace">${v.adminOf.map((w) => html`<option value="${w.workspaceId}">${w.name}</option>`)}</select>`;
  return html`<form method="post" action="/templates/${t.id}/use" class="use-template">
${v.csrf}
${choice}
<p><button type="submit" aria-label="${s.galleryUse}: ${t.label}">${s.galleryUse}</button></p>
</form>`;
}

/** Withdraw, for an ADMIN of the workspace that shared the template: a link to the confirmation, as archive has. */
function withdrawLink(s: Texts, v: GalleryVisitor, t: GalleryTemplate): Html | string {
  if (!v.adminOf.some((w) => w.workspaceId === t.workspaceId)) return "";
  return html`<p><a href="/templates/${t.id}/withdraw" class="withdraw-template" aria-label="${s.withdraw}: ${t.label}">${s.withdraw}</a></p>`;
}

function card(s: Texts, v: GalleryVisitor, t: GalleryTemplate, loginHref: string): Html {
  const thumbnail = t.thumbnailKey
    ? html`<img src="/templates/${t.id}/thumbnail" alt="${fill(s.galleryThumbnail, { label: t.label })}" loading="lazy" width="240">`
    : "";
  return html`<li data-template="${t.id}">
<h3>${t.label}</h3>
${thumbnail}
<p class="muted">${fill(s.galleryPublisher, { publisher: t.publisher })} · ${t.pageSize}</p>
${t.description ? html`<p>${t.description}</p>` : ""}
${t.tags.length ? html`<p>${t.tags.map((tag) => html`<a class="badge" href="/templates?tag=${encodeURIComponent(tag)}">${tag}</a> `)}</p>` : ""}
${useForm(s, v, t, loginHref)}
${withdrawLink(s, v, t)}
</li>`;
}

/** The query of a gallery page starting at a cursor (search and tag kept); no cursor, the first page. */
function pageHref(q: string, tag: string, cursor?: string): string {
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (tag) params.set("tag", tag);
  if (cursor) params.set("cursor", cursor);
  const query = params.toString();
  return `/templates${query ? `?${query}` : ""}`;
}

/**
 * GET `/templates?q=&tag=&cursor=`: the public template gallery, as `{auth_url}/public/templates`
 * lists it (same search, 30 a page at most, read one page at a time). Anyone may browse; copying
 * needs a login and an ADMIN role. A cursor that is not one is the first page.
 */
export const galleryPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const s = studioText(req.lang);
    const q = (req.query("q") ?? "").slice(0, 200);
    const tag = (req.query("tag") ?? "").slice(0, 40);
    const rawCursor = req.query("cursor") ?? "";
    const cursor = /^[0-9A-Za-z]{1,64}$/.test(rawCursor) ? rawCursor : undefined;
    const [visitor, found] = await Promise.all([
      galleryVisitor(identity, req),
      searchTemplates({ ...(q && { q }), ...(tag && { tag }), ...(cursor && { cursor }) }),
    ]);
    const notice =
      req.query("withdrawn") !== undefined ? html`<p class="notice" role="status" id="flash">${s.withdrawn}</p>` : "";
    const list = found.templates.length
      ? html`<ul class="gallery" id="templates">${found.templates.map((t) => card(s, visitor, t, identity.loginUrl(req.returnTo)))}</ul>`
      : html`<p id="templates">${s.galleryNone}</p>`;
    const pager =
      cursor || found.next
        ? html`<nav class="pager" aria-label="${s.galleryTitle}">
${cursor ? html`<a href="${pageHref(q, tag)}" rel="first">${s.galleryFirst}</a>` : ""}
${found.next ? html`<a href="${pageHref(q, tag, found.next)}" rel="next">${s.galleryNext}</a>` : ""}
</nav>`
        : "";
    const body = html`${notice}
${searchForm(s, q, tag, found.templates)}
${list}
${pager}`;
    return { status: 200, page: page(req, identity, Boolean(visitor.userId), s.galleryTitle, body) };
  };

/**
 * GET `/templates/{templateId}/thumbnail`: the template's page-1 PNG, the image
 * `{auth_url}/public/templates/{id}/thumbnail` serves. Served here too because the site's CSP
 * allows images of its own origin only, and in AWS `{auth_url}` is another origin.
 */
export const galleryThumbnail =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const template = await getTemplate(req.params.templateId ?? "").catch(notFoundError);
    const png = template?.thumbnailKey ? await getThumbnail(template.thumbnailKey) : undefined;
    if (!png) return notFound(req, identity, Boolean(await identity.userOf(req.header("cookie"))));
    // Sharing again replaces a template's version under the same id: a short public cache.
    return pngAnswer(png, "public, max-age=60");
  };

/** A template that is not (or no longer) in the gallery reads as undefined; any other failure is a fault. */
function notFoundError(err: unknown): undefined {
  if (isPlatenError(err) && err.status === 404) return undefined;
  throw err;
}

/**
 * POST `/templates/{templateId}/use`: the template copied into the chosen workspace as a new
 * design (`POST /designs {"fromTemplate"}` of the API: ADMIN, CSRF, audited `design.create`),
 * then its editor.
 */
export const useTemplateAction =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const s = studioText(req.lang);
    const fields = req.form();
    let access: Awaited<ReturnType<typeof sessionGrant>>;
    try {
      access = await sessionGrant(identity, user.userId, fields.get("workspace") ?? "", "designs:write");
    } catch (err) {
      if (!isPlatenError(err)) throw err;
      return formRefused(req, identity, s.galleryTitle);
    }
    if (!access) return notFound(req, identity, true);
    if (!(await csrfAccepted(user.userId, fields))) return formRefused(req, identity, s.galleryTitle);
    await admitRate(access.grant, "design-write"); // a new design: the design API's create counts it the same
    const createdBy = (await identity.emailOf(user.userId)) ?? user.userId;
    const copied = await copyTemplate(access.grant, req.params.templateId ?? "", createdBy).catch(notFoundError);
    if (!copied) return notFound(req, identity, true);
    return { status: 303, redirect: `/designs/${copied.id}` };
  };

/**
 * The template behind `/templates/{templateId}/withdraw` with the visitor's `templates:write` grant
 * in the workspace that shared it, or the answer instead: the login, 404 (unknown, or another
 * workspace's template, as on the API), 403 (a READ member).
 */
async function ownTemplate(identity: SiteIdentity, req: SiteRequest) {
  const user = await requireUser(req, identity);
  if ("result" in user) return user;
  const template = await getTemplate(req.params.templateId ?? "").catch(notFoundError);
  if (!template) return { result: notFound(req, identity, true) };
  try {
    const access = await sessionGrant(identity, user.userId, template.workspaceId, "templates:write");
    if (!access) return { result: notFound(req, identity, true) };
    return { userId: user.userId, template, grant: access.grant };
  } catch (err) {
    if (!isPlatenError(err)) throw err;
    return { result: formRefused(req, identity, studioText(req.lang).galleryTitle) };
  }
}

/** GET `/templates/{templateId}/withdraw`: the confirmation (a plain form), as archiving a design has one. */
export const withdrawConfirmPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const own = await ownTemplate(identity, req);
    if ("result" in own) return own.result;
    const s = studioText(req.lang);
    const body = html`<p>${s.withdrawBody}</p>
<form method="post" action="/templates/${own.template.id}/withdraw" id="withdraw-form">
${await csrfField(own.userId)}
<p>
  <button type="submit" class="danger" id="withdraw-confirm">${s.withdraw}</button>
  <a class="button secondary" href="/templates">${s.cancel}</a>
</p>
</form>`;
    return { status: 200, page: page(req, identity, true, fill(s.withdrawTitle, { label: own.template.label }), body) };
  };

/**
 * POST `/templates/{templateId}/withdraw`: `DELETE /templates/{id}` of the API for an ADMIN of the
 * workspace that shared it (CSRF, audited `template.withdraw`). Another workspace's template is
 * not found, as on the API.
 */
export const withdrawTemplateAction =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const own = await ownTemplate(identity, req);
    if ("result" in own) return own.result;
    if (!(await csrfAccepted(own.userId, req.form())))
      return formRefused(req, identity, studioText(req.lang).galleryTitle);
    await withdrawTemplate(own.grant.workspaceId, own.template.id);
    await auditDesign(own.grant, "template.withdraw", own.template.id);
    return { status: 303, redirect: "/templates?withdrawn=1" };
  };
