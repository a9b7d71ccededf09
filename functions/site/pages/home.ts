import { config } from "#shared/aws/config.ts";
import { listDesignsPage } from "#shared/authoring/design-list.ts";
import { systemClock } from "#shared/clock.ts";
import type { Language } from "#shared/errors/language.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import { monthOf, usageReport } from "#shared/limits/page-quota.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { logger } from "#shared/observability/logger.ts";
import { listOutputHistory } from "#shared/site/history-query.ts";
import { getWorkspace, type Workspace } from "#shared/workspaces/workspace-store.ts";
import type { SiteIdentity } from "../identity.ts";
import { KEY_WARNING_DAYS, keyAgeDays } from "../key-age-notice.ts";
import { dataTable, timeElement } from "../page-parts.ts";
import { page } from "../site-edge.ts";
import type { PageHandler } from "../site-types.ts";
import { t } from "../strings.ts";
import { studioText } from "../studio/studio-text.ts";
import { chosenWorkspace } from "../visitor.ts";

/** Designs and documents the dashboard shows; the full lists are one link away. */
const LATEST_DESIGNS = 4;
const LATEST_DOCUMENTS = 5;

/** This month's pages against the plan's allowance (`usageReport`, what the usage API reports). */
async function usageSection(lang: Language, ws: Workspace): Promise<Html> {
  const s = t(lang);
  const month = monthOf(systemClock.now());
  const usage = await usageReport(dynamoPageCounter, ws, month);
  const used = usage.pagesUsed.toLocaleString("en-US");
  const line =
    usage.limit === null
      ? fill(s.homeUsageUnlimited, { used, month })
      : fill(s.homeUsage, { used, limit: usage.limit.toLocaleString("en-US"), month, plan: usage.plan ?? "–" });
  const meter =
    usage.limit === null
      ? ""
      : html`<p><meter id="usage-meter" min="0" max="${usage.limit}" value="${Math.min(usage.pagesUsed, usage.limit)}" aria-label="${s.homeUsageMeter}">${used}</meter></p>`;
  const after =
    usage.stops === true
      ? html`<p class="muted">${s.homeUsageStops}</p>`
      : usage.overage > 0
        ? html`<p class="notice">${fill(s.homeUsageOverage, { pages: usage.overage })}</p>`
        : "";
  return html`<section aria-labelledby="usage-title" id="usage">
<h2 id="usage-title">${s.homeUsageTitle}</h2>
<p id="usage-line">${line}</p>
${meter}
${after}
</section>`;
}

/** The application key's 90-day warning, as the settings page shows it, with the way there. */
function keyWarning(lang: Language, ws: Workspace): Html | string {
  const days = keyAgeDays(ws, systemClock.now());
  if (days < KEY_WARNING_DAYS) return "";
  const s = t(lang);
  return html`<p class="warning" role="alert" id="key-warning">${fill(s.settingsKeyWarning, { days })} <a href="/settings?workspace=${ws.id}">${s.homeKeySettings}</a></p>`;
}

/** The latest changed designs with their thumbnails. */
async function designsSection(lang: Language, ws: Workspace): Promise<Html> {
  const s = t(lang);
  const st = studioText(lang);
  const list = await listDesignsPage(ws.id, { page: 1, archived: false }, config().baseUrl);
  const designs = list.designs.slice(0, LATEST_DESIGNS);
  const items = designs.length
    ? html`<ul class="gallery" id="home-designs">${designs.map(
        (d) => html`<li data-design="${d.id}">
<a href="/designs/${d.id}">${d.label}</a>
<img class="thumb" src="/designs/${d.id}/thumbnail?version=${d.latestVersion}" alt="${fill(st.thumbnailOf, { label: d.label })}" loading="lazy" width="200">
<p class="muted">${st.colLatest}: ${d.latestVersion} · ${timeElement(d.updatedAt)}</p>
</li>`,
      )}</ul>`
    : html`<p id="home-designs">${s.homeDesignsNone}</p>`;
  return html`<section aria-labelledby="designs-title">
<h2 id="designs-title">${s.homeDesignsTitle}</h2>
${items}
<p><a href="/designs?workspace=${ws.id}">${s.homeDesignsAll}</a></p>
</section>`;
}

/** The output history's first rows. */
async function documentsSection(lang: Language, ws: Workspace): Promise<Html> {
  const s = t(lang);
  const history = await listOutputHistory(ws.id, { pageSize: LATEST_DOCUMENTS }, systemClock);
  const rows = history.requests.slice(0, LATEST_DOCUMENTS).map(
    (r) => html`<tr>
  <td><a href="/output-history/${r.requestId}"><code>${r.requestId}</code></a></td>
  <td>${timeElement(r.createdAt)}</td>
  <td>${s.status[r.status] ?? r.status}</td>
  <td>${r.files.map((f) => f.fileName).join(", ")}</td>
</tr>`,
  );
  const table = rows.length
    ? dataTable([s.historyRequest, s.historyCreated, s.historyStatus, s.historyFiles], rows, { id: "home-documents" })
    : html`<p id="home-documents">${s.historyEmpty}</p>`;
  return html`<section aria-labelledby="documents-title">
<h2 id="documents-title">${s.homeDocumentsTitle}</h2>
${table}
<p><a href="/output-history?workspace=${ws.id}">${s.homeDocumentsAll}</a></p>
</section>`;
}

/**
 * One section of the dashboard. A section that cannot be read (the output history of a data dir
 * made before its index existed, a throttled table) says so in its place, logged, instead of
 * taking the whole home page down with it: every other page stays one link away.
 */
async function section(lang: Language, name: string, read: () => Promise<Html>): Promise<Html> {
  try {
    return await read();
  } catch (err) {
    logger.warn("home dashboard section failed", { section: name, error: (err as Error).name });
    return html`<p class="notice" data-section="${name}">${t(lang).homeSectionFailed}</p>`;
  }
}

/**
 * GET `/`: what the site is, for anonymous visitors; for a member, the dashboard of the chosen
 * workspace (`?workspace=`, else the first): the month's pages, the key warning, the latest designs
 * and documents. Every member sees it; nothing on it changes anything.
 */
export const homePage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const s = t(req.lang);
    const userId = await identity.userOf(req.header("cookie"));
    const intro = html`<p>${s.homeBody}</p>`;
    if (!userId) return { status: 200, page: page(req, identity, false, s.homeTitle, intro) };
    const { all, chosen } = await chosenWorkspace(req, identity, userId);
    const workspace = chosen && (await getWorkspace(chosen.workspaceId));
    if (!workspace) return { status: 200, page: page(req, identity, true, s.homeTitle, intro) };
    const others = await Promise.all(
      all
        .filter((m) => m.workspaceId !== workspace.id)
        .map(
          async (m) =>
            html` <a href="/?workspace=${m.workspaceId}">${(await getWorkspace(m.workspaceId))?.name ?? m.workspaceId}</a>`,
        ),
    );
    const [usage, designs, documents] = await Promise.all([
      section(req.lang, "usage", () => usageSection(req.lang, workspace)),
      section(req.lang, "designs", () => designsSection(req.lang, workspace)),
      section(req.lang, "documents", () => documentsSection(req.lang, workspace)),
    ]);
    const body = html`${intro}
<h2 id="dashboard-title">${fill(s.homeDashboard, { workspace: workspace.name })}</h2>
${others.length ? html`<p class="muted">${s.homeOtherWorkspaces}${others}</p>` : ""}
${keyWarning(req.lang, workspace)}
${usage}
${designs}
${documents}`;
    return { status: 200, page: page(req, identity, true, s.homeTitle, body) };
  };
