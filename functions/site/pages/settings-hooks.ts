import type { DesignHead } from "#shared/designs/design-store.ts";
import type { Language } from "#shared/errors/language.ts";
import type { WebhookEndpointView } from "#shared/webhooks/endpoints.ts";
import { fill } from "#shared/i18n/texts.ts";
import { type Html, html } from "#shared/html/html.ts";
import { dataTable } from "../page-parts.ts";
import { t } from "../strings.ts";

const checked = (on: boolean) => (on ? html` checked` : "");

export interface EndpointSectionInput {
  workspaceId: string;
  admin: boolean;
  endpoints: WebhookEndpointView[];
  designs: DesignHead[];
  csrf: Html;
}

/**
 * shared/webhooks/README.md#registering-endpoints: ids of `targetDesignIds` the workspace no longer has (kept
 * in the list; the UI warns).
 */
export const missingDesignIds = (e: WebhookEndpointView, designs: DesignHead[]) => {
  const known = new Set(designs.map((d) => d.id));
  return e.targetDesignIds.filter((id) => !known.has(id));
};

/** The design filter fields: all/selected, a checkbox per design, and other ids as text (deleted designs stay listed). */
function filterFields(lang: Language, prefix: string, designs: DesignHead[], current?: WebhookEndpointView): Html {
  const s = t(lang);
  const selected = current?.designFilterType === "selected";
  const chosen = new Set(current?.targetDesignIds ?? []);
  const others = (current?.targetDesignIds ?? []).filter((id) => !designs.some((d) => d.id === id));
  const radio = (value: string, on: boolean, label: string) =>
    html`<label><input type="radio" name="designFilterType" value="${value}"${checked(on)}> ${label}</label>`;
  const boxes = designs.map((d) => {
    const box = html`<input type="checkbox" name="targetDesignIds" value="${d.id}"${checked(chosen.has(d.id))}>`;
    return html`<label>
  ${box} ${d.label} <code>${d.id}</code>
</label>`;
  });
  return html`<fieldset>
  <legend>${s.settingsHookFilter}</legend>
  ${radio("all", !selected, s.settingsHookAll)}
  ${radio("selected", selected, s.settingsHookSelected)}
  ${boxes}
  <label for="${prefix}-other">${s.settingsHookOtherIds}</label>
  <input type="text" id="${prefix}-other" name="otherDesignIds" value="${others.join(", ")}" maxlength="2000">
</fieldset>`;
}

/** The admin's buttons of one endpoint and its edit form. */
function endpointActions(lang: Language, input: EndpointSectionInput, e: WebhookEndpointView): Html {
  const s = t(lang);
  const base = `/settings/${input.workspaceId}/hooks/${e.id}`;
  const button = (action: string, label: string, cls = "secondary") =>
    html`<form class="inline" method="post" action="${base}/${action}">
  ${input.csrf}
  <button type="submit" class="${cls}" data-action="${action}" aria-label="${label}: ${e.url}">${label}</button>
</form>`;
  const toggle = e.enabled ? button("disable", s.settingsHookDisable) : button("enable", s.settingsHookEnable);
  return html`${toggle}
${button("secret", s.settingsHookReveal)}
${button("regenerate", s.settingsHookRegenerate)}
${button("delete", s.settingsHookDelete, "danger")}
<details>
  <summary>${s.settingsHookEdit}</summary>
  <form method="post" action="${base}/update">
    ${input.csrf}
    <label for="url-${e.id}">${s.settingsHookUrl}</label>
    <input type="url" id="url-${e.id}" name="url" value="${e.url}" required maxlength="2048">
    <label><input type="checkbox" name="enabled" value="true"${checked(e.enabled)}> ${s.settingsHookEnabled}</label>
    ${filterFields(lang, `edit-${e.id}`, input.designs, e)}
    <p><button type="submit">${s.settingsHookSave}</button></p>
  </form>
</details>`;
}

function endpointRow(lang: Language, input: EndpointSectionInput, e: WebhookEndpointView): Html {
  const s = t(lang);
  const missing = missingDesignIds(e, input.designs);
  const missingText = fill(s.settingsHookMissing, { ids: missing.join(", ") });
  const warning = missing.length
    ? html`<p class="warning" role="alert" data-warning="missing-designs">${missingText}</p>`
    : "";
  const filter =
    e.designFilterType === "all"
      ? s.settingsHookAll
      : html`${s.settingsHookSelected}: ${e.targetDesignIds.map((id, i) => html`${i ? ", " : ""}<code>${id}</code>`)}`;
  return html`<tr data-endpoint="${e.id}">
  <td>${e.url}</td>
  <td>${e.enabled ? s.settingsHookEnabled : s.settingsHookDisabled}</td>
  <td>${filter}${warning}</td>
  <td>${input.admin ? endpointActions(lang, input, e) : ""}</td>
</tr>`;
}

/**
 * Webhook endpoints (see shared/webhooks/README.md#registering-endpoints,
 * shared/webhooks/README.md#managing-endpoints-over-http) as the settings page shows and edits them.
 */
export function endpointSection(lang: Language, input: EndpointSectionInput): Html {
  const s = t(lang);
  const table = input.endpoints.length
    ? dataTable(
        [s.settingsHookUrl, s.settingsHookStatus, s.settingsHookFilter, s.settingsHookActions],
        input.endpoints.map((e) => endpointRow(lang, input, e)),
        { id: "endpoints" },
      )
    : html`<p id="endpoints">${s.settingsHooksNone}</p>`;
  const create = input.admin
    ? html`<h3>${s.settingsHookCreate}</h3>
<form method="post" action="/settings/${input.workspaceId}/hooks" id="create-endpoint">
  ${input.csrf}
  <label for="new-url">${s.settingsHookUrl}</label>
  <input type="url" id="new-url" name="url" required maxlength="2048" placeholder="https://">
  ${filterFields(lang, "new", input.designs)}
  <p><button type="submit">${s.settingsHookCreate}</button></p>
</form>`
    : "";
  return html`<section aria-labelledby="hooks-title">
<h2 id="hooks-title">${s.settingsHooksTitle}</h2>
${table}
${create}
</section>`;
}
