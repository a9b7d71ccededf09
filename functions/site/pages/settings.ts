import { systemClock } from "#shared/clock.ts";
import { listActiveDesignHeads } from "#shared/designs/design-store.ts";
import type { Language } from "#shared/errors/language.ts";
import { type WebhookEndpointView, listWebhookEndpoints } from "#shared/webhooks/endpoints.ts";
import { getWorkspace, type Workspace } from "#shared/workspaces/workspace-store.ts";
import { fill } from "#shared/i18n/texts.ts";
import { type Html, html } from "#shared/html/html.ts";
import type { Role, SiteIdentity } from "../identity.ts";
import { KEY_WARNING_DAYS, keyAgeDays } from "../key-age-notice.ts";
import { notFound, page } from "../site-edge.ts";
import type { PageHandler, SiteRequest, SiteResult } from "../site-types.ts";
import { csrfField, dataTable, timeElement } from "../page-parts.ts";
import { t } from "../strings.ts";
import { chosenWorkspace, requireUser } from "../visitor.ts";
import { endpointSection } from "./settings-hooks.ts";

/** A one-time message above the sections: a secret shown once, or why a change failed. */
export type Flash = { kind: "secret"; text: string; secret: string } | { kind: "problem"; text: string };

export interface SettingsView {
  userId: string;
  workspace: Workspace;
  role: Role;
  all: { workspaceId: string }[];
  flash?: Flash;
}

/** The application key: when it was last rotated, the 90-day warning, the rotate button for admins. */
export function keySection(lang: Language, v: SettingsView, csrf: Html): Html {
  const s = t(lang);
  const days = keyAgeDays(v.workspace, systemClock.now());
  const warning =
    days > KEY_WARNING_DAYS
      ? html`<p class="warning" role="alert" id="key-warning">${fill(s.settingsKeyWarning, { days })}</p>`
      : "";
  const rotate =
    v.role === "admin"
      ? html`<form method="post" action="/settings/${v.workspace.id}/key-rotate" id="rotate-key-form">
  ${csrf}
  <p class="muted">${s.settingsKeyRotateHint}</p>
  <button type="submit" id="rotate-key">${s.settingsKeyRotate}</button>
</form>`
      : "";
  const age = fill(s.settingsKeyAge, { days });
  return html`<section aria-labelledby="key-title">
<h2 id="key-title">${s.settingsKeyTitle}</h2>
<dl class="facts">
  <dt>${s.settingsKeyRotated}</dt>
  <dd id="key-rotated">${timeElement(v.workspace.appKeyRotatedAt)} (${age})</dd>
</dl>
${warning}
${rotate}
</section>`;
}

/** The workspace's members with their roles, then its OAuth clients. */
export async function membersSection(lang: Language, identity: SiteIdentity, workspaceId: string): Promise<Html> {
  const s = t(lang);
  const members = (await identity.membersOf(workspaceId)).map(
    (m) => html`<tr><td>${m.email}</td><td>${s.settingsRole[m.role] ?? m.role}</td></tr>`,
  );
  return html`<section aria-labelledby="members-title">
<h2 id="members-title">${s.settingsMembersTitle}</h2>
<table id="members">
<thead>
  <tr><th scope="col">${s.settingsMemberEmail}</th><th scope="col">${s.settingsMemberRole}</th></tr>
</thead>
<tbody>${members}</tbody>
</table>
</section>
${await clientsSection(lang, identity, workspaceId)}`;
}

async function clientsSection(lang: Language, identity: SiteIdentity, workspaceId: string): Promise<Html> {
  const s = t(lang);
  const clients = await identity.clientsOf(workspaceId);
  const rows = clients.map(
    (c) => html`<tr>
  <td>${c.name}</td>
  <td><code>${c.clientId}</code></td>
  <td>${c.isPublic ? s.settingsClientPublic : s.settingsClientConfidential}</td>
</tr>`,
  );
  const table = clients.length
    ? dataTable([s.settingsClientName, s.settingsClientId, s.settingsClientType], rows, { id: "clients" })
    : html`<p id="clients">${s.settingsClientsNone}</p>`;
  return html`<section aria-labelledby="clients-title">
<h2 id="clients-title">${s.settingsClientsTitle}</h2>
${table}
</section>`;
}

/** The flash block: the secret in an `<output>` to copy, or the problem as an alert. */
export function flashBlock(flash: Flash | undefined): Html | string {
  if (!flash) return "";
  if (flash.kind === "problem") return html`<div class="alert" role="alert" id="flash">${flash.text}</div>`;
  return html`<div class="notice" role="status" id="flash">
  <p>${flash.text}</p>
  <p><output class="secret" id="shown-secret">${flash.secret}</output></p>
</div>`;
}

/** The workspace picker, when the visitor belongs to more than one. */
async function workspacePicker(lang: Language, v: SettingsView): Promise<Html | string> {
  if (v.all.length < 2) return "";
  const s = t(lang);
  const options = await Promise.all(
    v.all.map(async (m) => {
      const name = (await getWorkspace(m.workspaceId))?.name ?? m.workspaceId;
      const selected = m.workspaceId === v.workspace.id ? html` selected` : "";
      return html`<option value="${m.workspaceId}"${selected}>${name}</option>`;
    }),
  );
  return html`<form method="get" action="/settings">
  <label for="workspace">${s.historyWorkspace}</label>
  <select id="workspace" name="workspace">${options}</select>
  <button type="submit" class="secondary">${s.historyShow}</button>
</form>`;
}

/** The whole settings page of one workspace (also the answer of an action that shows a secret or a problem). */
export async function renderSettings(
  req: SiteRequest,
  identity: SiteIdentity,
  v: SettingsView,
  status = 200,
): Promise<SiteResult> {
  const s = t(req.lang);
  const csrf = await csrfField(v.userId);
  const [endpoints, designs] = await Promise.all([
    listWebhookEndpoints(v.workspace.id),
    listActiveDesignHeads(v.workspace.id),
  ]);
  const admin = v.role === "admin";
  const readOnly = admin ? "" : html`<p class="notice">${s.settingsReadOnly}</p>`;
  const hooks = { workspaceId: v.workspace.id, admin, endpoints: endpoints as WebhookEndpointView[], designs, csrf };
  const body = html`${await workspacePicker(req.lang, v)}
<p class="muted">${v.workspace.name} (<code>${v.workspace.id}</code>)</p>
${readOnly}
${flashBlock(v.flash)}
${keySection(req.lang, v, csrf)}
${endpointSection(req.lang, hooks)}
${await membersSection(req.lang, identity, v.workspace.id)}`;
  return { status, page: page(req, identity, true, s.settingsTitle, body) };
}

/** GET `/settings`: members see their workspace's settings; admins can change them. */
export const settingsPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const { all, chosen } = await chosenWorkspace(req, identity, user.userId);
    const workspace = chosen && (await getWorkspace(chosen.workspaceId));
    if (!chosen || !workspace) {
      const s = t(req.lang);
      return chosen
        ? notFound(req, identity, true)
        : { status: 200, page: page(req, identity, true, s.settingsTitle, html`<p>${s.historyNoWorkspace}</p>`) };
    }
    return renderSettings(req, identity, { userId: user.userId, workspace, role: chosen.role, all });
  };
