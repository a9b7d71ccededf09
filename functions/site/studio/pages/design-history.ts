import { bundleZip, toJsonForm } from "#shared/authoring/bundle-codec.ts";
import { listVersionsPage, saveDraft, versionBundle, versionOf } from "#shared/authoring/design-lifecycle.ts";
import { systemClock } from "#shared/clock.ts";
import { parsePage } from "#shared/designs/design-pages.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import type { SiteIdentity } from "../../identity.ts";
import { csrfField, dataTable, timeElement } from "../../page-parts.ts";
import { page } from "../../site-edge.ts";
import type { PageHandler } from "../../site-types.ts";
import { zipAnswer } from "../binary-answers.ts";
import { DESIGN_WRITE, type DesignCall, designRoute } from "../design-route.ts";
import { auditDesign } from "../studio-access.ts";
import { studioText } from "../studio-text.ts";
import { MAX_CHANGED_LINES, MAX_COMPARED_CHARS, MAX_COMPARED_LINES, versionDiff } from "../version-diff.ts";
import { shareSection } from "./gallery-share.ts";

type Texts = ReturnType<typeof studioText>;

/** One row per version: who, when, the note, its sample page, export, and (ADMIN) open in editor. */
async function versionRows(call: DesignCall, versions: Awaited<ReturnType<typeof listVersionsPage>>["versions"]) {
  const s = studioText(call.req.lang);
  const { head } = call;
  const csrf = call.role === "admin" ? await csrfField(call.userId) : undefined;
  return versions.map(
    (v) => html`<tr data-version="${v.version}">
  <td>${v.version}</td>
  <td>${v.createdBy || "–"}</td>
  <td>${timeElement(v.createdAt)}</td>
  <td>${v.note || "–"}</td>
  <td><a href="/designs/${head.id}/versions/${v.version}/sample" class="sample-link"><img class="thumb" src="/designs/${head.id}/thumbnail?version=${v.version}" alt="${fill(s.sampleLink, { version: v.version })}" loading="lazy" width="80"></a></td>
  <td>
    <a href="/designs/${head.id}/versions/${v.version}/bundle" download>${s.exportZip}</a>
    ${
      csrf
        ? html`<form method="post" action="/designs/${head.id}/versions/${v.version}/restore" class="inline">
${csrf}
<button type="submit" class="secondary" aria-label="${s.restore} (${s.colVersion} ${v.version})">${s.restore}</button>
</form>`
        : ""
    }
  </td>
</tr>`,
  );
}

/** Pages of the version list, like the API's (30 a page, newest first). */
function pager(s: Texts, designId: string, current: number, totalPages: number): Html | string {
  if (totalPages < 2) return "";
  const link = (n: number, text: string) => html`<a href="/designs/${designId}/versions?page=${n}">${text}</a>`;
  return html`<nav class="pager" aria-label="${s.colVersion}">
${current > 1 ? link(current - 1, s.newerVersions) : ""}
${current < totalPages ? link(current + 1, s.olderVersions) : ""}
</nav>`;
}

/** A version number of the compare form, or undefined when it is missing or not a version. */
function chosenVersion(raw: string | undefined, latest: number): number | undefined {
  if (raw === undefined || !/^\d{1,10}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && n <= latest ? n : undefined;
}

/** The compare form (a GET form: the diff has an address of its own) and, when asked, the diff. */
async function compareSection(call: DesignCall): Promise<Html> {
  const s = studioText(call.req.lang);
  const { head, req } = call;
  const latest = head.latestVersion;
  const asked = req.query("from") !== undefined || req.query("to") !== undefined;
  const from = chosenVersion(req.query("from"), latest);
  const to = chosenVersion(req.query("to"), latest);
  const field = (name: "from" | "to", label: string, value: number) => html`<div>
  <label for="compare-${name}">${label}</label>
  <input type="number" id="compare-${name}" name="${name}" min="1" max="${latest}" value="${value}" required>
</div>`;
  let result: Html | string = "";
  if (asked && (from === undefined || to === undefined))
    result = html`<p class="alert" role="alert" id="diff">${fill(s.compareInvalid, { latest })}</p>`;
  else if (from !== undefined && to !== undefined) result = await diffBlock(call, s, from, to);
  return html`<section aria-labelledby="compare-title">
<h2 id="compare-title">${s.compareTitle}</h2>
<form method="get" action="/designs/${head.id}/versions#diff" id="compare-form" class="inline-fields">
${field("from", s.compareFrom, from ?? Math.max(1, latest - 1))}
${field("to", s.compareTo, to ?? latest)}
<p><button type="submit">${s.compareButton}</button></p>
</form>
${result}
</section>`;
}

/**
 * The unified diff of two versions, rendered here as text: each line keeps its `+`/`-`/space
 * mark so it reads without colour, and the classes colour it. Every line is escaped by `html`.
 */
async function diffBlock(call: DesignCall, s: Texts, from: number, to: number): Promise<Html> {
  const { head } = call;
  const [a, b] = await Promise.all([
    versionOf(head.workspaceId, head.id, from).then(versionBundle),
    versionOf(head.workspaceId, head.id, to).then(versionBundle),
  ]);
  const files = versionDiff(a, b).filter((f) => f.lines.length || f.tooLarge);
  if (!files.length) return html`<div id="diff"><p class="notice" role="status">${s.compareSame}</p></div>`;
  return html`<div id="diff">${files.map(
    (f) => html`<h3>${fill(s.diffOf, { file: f.file, from, to })}</h3>
${f.tooLarge ? tooLargeNotice(call, s, f.file, from, to) : html`<pre class="diff" data-file="${f.file}">${f.lines.map((l) => html`<span class="${l.kind}">${l.text}</span>`)}</pre>`}`,
  )}</div>`;
}

/** A file past the diff's bounds (studio/version-diff.ts): said so, with both versions to download. */
function tooLargeNotice(call: DesignCall, s: Texts, file: string, from: number, to: number): Html {
  const bounds = {
    lines: MAX_COMPARED_LINES.toLocaleString("en"),
    chars: MAX_COMPARED_CHARS.toLocaleString("en"),
    changes: MAX_CHANGED_LINES.toLocaleString("en"),
  };
  const download = (version: number) =>
    html`<a href="/designs/${call.head.id}/versions/${version}/bundle" download>${fill(s.compareDownload, { version })}</a>`;
  return html`<p class="notice" role="status" data-too-large="${file}">${fill(s.compareTooLarge, bounds)} ${download(from)}, ${download(to)}</p>`;
}

/**
 * The message the site redirected here with, by its key: `?shared=N` after sharing version N. The
 * text is always the site's own: the query only picks it, and a value that is not a version of this
 * design (a forged link's words) shows nothing.
 */
function flashNotice(call: DesignCall): Html | string {
  const s = studioText(call.req.lang);
  const version = chosenVersion(call.req.query("shared"), call.head.latestVersion);
  if (version === undefined) return "";
  return html`<p class="notice" role="status" id="flash">${fill(s.shared, { version })}</p>`;
}

/** GET `/designs/{designId}/versions`: every version (newest first, paged), the compare form and the diff. */
export const historyPage = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:read", "page", async (call) => {
    const s = studioText(call.req.lang);
    const { head, req } = call;
    const list = await listVersionsPage(head.workspaceId, head.id, parsePage(req.query("page")));
    const body = html`${flashNotice(call)}
<p><a href="/designs/${head.id}">${s.backToEditor}</a></p>
<section aria-labelledby="versions-title">
<h2 id="versions-title">${s.colVersion}</h2>
${call.role === "admin" ? html`<p class="muted">${s.restoreHint}</p>` : ""}
${dataTable([s.colVersion, s.colWho, s.colWhen, s.colNote, s.colSample, s.colActions], await versionRows(call, list.versions), { id: "versions" })}
${pager(s, head.id, list.page, list.totalPages)}
</section>
${await compareSection(call)}
${call.role === "admin" ? await shareSection(call) : ""}`;
    return { status: 200, page: page(req, identity, true, fill(s.historyTitle, { label: head.label }), body) };
  });

/** GET `/designs/{designId}/versions/{version}/bundle`: the version's bundle zip (the design API's export). */
export const exportVersion = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:read", "page", async ({ req, head }) => {
    const version = await versionOf(head.workspaceId, head.id, req.params.version ?? "");
    const zip = await bundleZip(await versionBundle(version));
    return zipAnswer(zip, `design-${head.id}-v${version.version}.zip`);
  });

/**
 * POST `/designs/{designId}/versions/{version}/restore`: that version becomes the draft (the
 * design API's draft save with the version's bundle in the JSON form), then the editor opens on
 * it. Nothing is published: the next publish makes it the latest version again.
 */
export const restoreAction = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, DESIGN_WRITE, "page", async ({ req, head, grant }) => {
    const version = await versionOf(head.workspaceId, head.id, req.params.version ?? "");
    const form = toJsonForm(await versionBundle(version));
    await saveDraft(grant.workspaceId, head.id, form as unknown as Record<string, unknown>, systemClock);
    await auditDesign(grant, "design.draft-save", head.id, { restoredFrom: String(version.version) });
    return { status: 303, redirect: `/designs/${head.id}?restored=${version.version}` };
  });
