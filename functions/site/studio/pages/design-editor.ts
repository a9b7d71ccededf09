import { randomBytes } from "node:crypto";
import * as z from "zod";
import type { DesignJsonForm } from "#shared/authoring/bundle-codec.ts";
import type { BundleProblem } from "#shared/authoring/bundle-rules.ts";
import { publishVersion } from "#shared/authoring/design-lifecycle.ts";
import { pageSchema } from "#shared/designs/bundle-schema.ts";
import type { DesignHead } from "#shared/designs/design-store.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { type ErrorDetail, isPlatenError } from "#shared/errors/platen-error.ts";
import { parseBody } from "#shared/http/request-body.ts";
import { type Html, html } from "#shared/html/html.ts";
import { studioPolicy } from "#shared/web/security-headers.ts";
import { fill } from "#shared/i18n/texts.ts";
import type { SiteIdentity } from "../../identity.ts";
import { csrfField, csrfToken, formatTime } from "../../page-parts.ts";
import { page } from "../../site-edge.ts";
import type { PageHandler, SiteResult } from "../../site-types.ts";
import { DESIGN_WRITE, type DesignCall, designRoute } from "../design-route.ts";
import { editorBase } from "../editable.ts";
import { publishDeps } from "../preview-render.ts";
import { scriptOrigin, scriptPath } from "../scripts.ts";
import { auditDesign, jsonAnswer } from "../studio-access.ts";
import { studioText } from "../studio-text.ts";
import { diffHref } from "../version-diff.ts";
import { problemItems, saveDraftFromForm } from "./design-draft.ts";

type Texts = ReturnType<typeof studioText>;

/** What the editor page shows besides the design: a message after a change, problems to fix. */
export interface EditorNotice {
  status?: number;
  message?: string;
  /** A link after the message (a publish conflict's diff). */
  link?: { href: string; text: string };
  problems?: BundleProblem[];
  /** The posted form's texts, shown again when they could not be saved. */
  form?: DesignJsonForm;
}

/** The named page sizes design.json takes. */
const PAGE_SIZES = pageSchema.shape.size.unwrap().options;

const FILE_TABS = [
  ["template", "tabTemplate"],
  ["style", "tabStyle"],
  ["parameters", "tabParameters"],
  ["sampleParams", "tabSample"],
  ["einvoiceMapping", "tabEinvoice"],
] as const;

/** The tabs a design shows: the e-invoice mapping only for a design that writes an e-invoice. */
const tabsOf = (form: DesignJsonForm) =>
  FILE_TABS.filter(
    ([file]) => file !== "einvoiceMapping" || form.einvoice !== undefined || form.einvoiceMapping !== undefined,
  );

/** The texts of a tab's textarea: the JSON ones pretty-printed. */
function sourceOf(form: DesignJsonForm, file: (typeof FILE_TABS)[number][0]): string {
  if (file === "template") return form.template;
  if (file === "einvoiceMapping") return form.einvoiceMapping ?? "";
  if (file === "style") return form.style ?? "";
  const value = file === "parameters" ? form.parameters : form.sampleParams;
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value, null, 2);
}

/** Size, orientation and margins: a plain form the script listens to. */
function pageSetup(s: Texts, form: DesignJsonForm): Html {
  const pageValue = (form.page ?? {}) as { size?: string; orientation?: string; margin?: Record<string, string> };
  const size = pageValue.size ?? "A4";
  const orientation = pageValue.orientation ?? "portrait";
  const margin = (side: string) => pageValue.margin?.[side] ?? "10mm";
  const marginField = (name: string, side: string, label: string) => html`<div>
  <label for="${name}">${label}</label>
  <input type="text" id="${name}" name="${name}" value="${margin(side)}" inputmode="decimal" pattern="\\d+(\\.\\d+)?(mm|cm|in|px)" size="8">
</div>`;
  return html`<fieldset id="page-setup" class="page-setup">
<legend>${s.pageSetup}</legend>
<div>
  <label for="page-size">${s.pageSize}</label>
  <select id="page-size" name="pageSize">${PAGE_SIZES.map(
    (name) => html`<option value="${name}"${name === size ? html` selected` : ""}>${name}</option>`,
  )}</select>
</div>
<div>
  <label for="page-orientation">${s.orientation}</label>
  <select id="page-orientation" name="orientation">
    <option value="portrait"${orientation === "portrait" ? html` selected` : ""}>${s.portrait}</option>
    <option value="landscape"${orientation === "landscape" ? html` selected` : ""}>${s.landscape}</option>
  </select>
</div>
${marginField("marginTop", "top", s.marginTop)}
${marginField("marginRight", "right", s.marginRight)}
${marginField("marginBottom", "bottom", s.marginBottom)}
${marginField("marginLeft", "left", s.marginLeft)}
</fieldset>`;
}

/** The four files: a tab list (shown by the script) over one labelled textarea each. */
function fileTabs(s: Texts, form: DesignJsonForm): Html {
  const shown = tabsOf(form);
  const tabs = shown.map(
    ([file, label]) =>
      html`<button type="button" role="tab" id="tab-${file}" data-file="${file}" aria-controls="panel-${file}">${s[label]}</button>`,
  );
  const panels = shown.map(
    ([file, label]) => html`<div class="file-panel" id="panel-${file}" role="tabpanel" aria-labelledby="tab-${file}">
<label for="src-${file}">${s[label]}</label>
<textarea id="src-${file}" name="${file}" rows="18" spellcheck="false">${sourceOf(form, file)}</textarea>
</div>`,
  );
  return html`<div role="tablist" aria-label="${s.editorFiles}" class="tabs" hidden>${tabs}</div>
${panels}`;
}

/** The texts the script writes, as data attributes of the studio root (no inline script, no markup in the script). */
function scriptTexts(s: Texts): Html {
  const entries: [string, string][] = [
    ["saving", s.draftSaving],
    ["saved", s.draftSaved],
    ["previewwaiting", s.previewWaiting],
    ["previewpage", s.previewPage],
    ["previewmore", s.previewMore],
    ["noproblems", s.problemsNone],
    ["problemat", s.problemAt],
    ["publishbutton", s.publishButton],
    ["published", s.published],
    ["conflict", s.conflict],
    ["conflictdiff", s.conflictDiff],
    ["scriptproblem", s.scriptProblem],
  ];
  return html`${entries.map(([key, value]) => html` data-text-${key}="${value}"`)}`;
}

async function editorBody(call: DesignCall, notice: EditorNotice, styleNonce: string): Promise<Html> {
  const s = studioText(call.req.lang);
  const { head } = call;
  const base = await editorBase(head);
  const form = notice.form ?? base.form;
  const admin = call.role === "admin";
  const csrf = await csrfField(call.userId);
  const origin = base.draftUpdatedAt
    ? fill(s.draftFrom, { at: formatTime(base.draftUpdatedAt) })
    : fill(s.draftNone, { version: head.latestVersion });
  const link = notice.link ? html` <a href="${notice.link.href}" id="flash-link">${notice.link.text}</a>` : "";
  const message = notice.message
    ? html`<p class="${notice.status && notice.status >= 400 ? "alert" : "notice"}" role="${notice.status && notice.status >= 400 ? "alert" : "status"}" id="flash">${notice.message}${link}</p>`
    : "";
  const save = admin
    ? html`<p><button type="submit" id="save-draft" class="secondary">${s.saveDraft}</button> <span id="save-status" role="status" aria-live="polite"></span></p>`
    : html`<p class="notice">${s.designsReadOnly}</p>`;
  const publish = admin
    ? html`<form method="post" action="/designs/${head.id}/publish" id="publish-form" class="publish">
${csrf}
<input type="hidden" name="expectedLatestVersion" value="${head.latestVersion}">
<h2>${s.publishTitle}</h2>
<p class="muted">${s.publishNoScript}</p>
<label for="publish-note">${s.publishNote}</label>
<input type="text" id="publish-note" name="note" maxlength="1000">
<p><button type="submit" id="publish">${fill(s.publishButton, { version: head.latestVersion + 1 })}</button></p>
<p id="publish-status" role="status" aria-live="polite"></p>
</form>`
    : "";
  return html`<div id="studio" class="studio" data-design="${head.id}" data-latest="${head.latestVersion}" data-csrf="${await csrfToken(call.userId)}" data-style-nonce="${styleNonce}"${scriptTexts(s)}>
${message}
<p class="muted">${origin} <a href="/designs/${head.id}/versions" id="history-link">${s.openHistory}</a></p>
<div class="studio-grid">
<div class="studio-edit">
<form method="post" action="/designs/${head.id}/draft" id="draft-form">
${csrf}
${pageSetup(s, form)}
${fileTabs(s, form)}
${save}
</form>
${publish}
</div>
<div class="studio-side">
<section id="preview" aria-labelledby="preview-title">
<h2 id="preview-title">${s.previewTitle}</h2>
<div id="preview-pages" class="preview-pages" aria-live="polite">
  <img class="page-image" src="/designs/${head.id}/thumbnail?version=${head.latestVersion}" alt="${fill(s.thumbnailOf, { label: head.label })}">
</div>
<p id="preview-status" class="muted" role="status">${s.previewNoScript}</p>
</section>
<section id="problems" aria-labelledby="problems-title">
<h2 id="problems-title">${s.problemsTitle}</h2>
<ul id="problem-list" class="problems">${problemItems(call.req.lang, notice.problems ?? [])}</ul>
</section>
</div>
</div>
</div>`;
}

/** The editor page (also the answer of a form that could not be applied). */
export async function renderEditor(
  identity: SiteIdentity,
  call: DesignCall,
  notice: EditorNotice = {},
): Promise<SiteResult> {
  const s = studioText(call.req.lang);
  // A fresh nonce per answer: the only inline styles the page allows are the code editor's.
  const nonce = randomBytes(18).toString("base64url");
  const body = await editorBody(call, notice, nonce);
  const title = fill(s.editorTitle, { label: call.head.label });
  return {
    status: notice.status ?? 200,
    headers: { "Content-Security-Policy": studioPolicy(nonce, scriptOrigin) },
    page: page(call.req, identity, true, title, body, { script: scriptPath("editor"), wide: true }),
  };
}

/** GET `/designs/{designId}`: the editor; members see it, ADMINs change. */
export const editorPage = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:read", "page", (call) => {
    const s = studioText(call.req.lang);
    // Only a version this design has: the query picks the site's own message, never adds words to it.
    const version = (name: string) => {
      const value = call.req.query(name);
      return value && /^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= call.head.latestVersion
        ? value
        : undefined;
    };
    // After "open in editor" on the history page, which version the draft now holds; after the
    // publish form (no script), which version it made.
    const restored = version("restored");
    const published = version("published");
    const message = restored
      ? fill(s.restored, { version: restored })
      : published
        ? fill(s.published, { version: published })
        : undefined;
    return renderEditor(identity, call, message ? { message } : {});
  });

/** POST `/designs/{designId}/draft` (the form, no script): saves the draft and shows the editor again. */
export const draftFormAction = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, DESIGN_WRITE, "page", async (call) => {
    const saved = await saveDraftFromForm(call);
    if ("problems" in saved) return renderEditor(identity, call, { status: 422, ...saved });
    return { status: 303, redirect: `/designs/${call.head.id}` };
  });

/**
 * POST `/designs/{designId}/publish`: publishes the saved draft as the next version with
 * `expectedLatestVersion`, as `POST /designs/{designId}/versions {"from": "draft"}` does, so a
 * version someone else published first is 409 DESIGN_VERSION_CONFLICT instead of being
 * overwritten. The script sends JSON; the form (no script) gets the editor page back.
 */
export const publishAction = (identity: SiteIdentity): PageHandler => {
  const json = designRoute(identity, DESIGN_WRITE, "json", async (call) => {
    // JSON that does not parse, or is not an object, is 400 VALIDATION_FAILED (the API's body rules).
    const text = call.req.bodyText();
    const body = parseBody(text?.trim() ? text : "{}", publishFields);
    const published = await publish(identity, call, body.note, body.expectedLatestVersion);
    return jsonAnswer(201, { id: published.id, version: published.version, sha256: published.sha256 });
  });
  const form = designRoute(identity, DESIGN_WRITE, "page", async (call) => {
    const fields = call.req.form();
    const s = studioText(call.req.lang);
    try {
      const published = await publish(identity, call, fields.get("note"), Number(fields.get("expectedLatestVersion")));
      return { status: 303, redirect: `/designs/${call.head.id}?published=${published.version}` };
    } catch (err) {
      if (!isPlatenError(err) || err.status >= 500) throw err;
      const head: DesignHead = call.head;
      const winner = Number(err.details[0]?.latestVersion);
      const conflict = err.code === "DESIGN_VERSION_CONFLICT";
      const message = conflict
        ? fill(s.conflict, { version: String(err.details[0]?.latestVersion ?? "?") })
        : [s.problem, ...err.details.map((d) => detailMessage(d, call.req.lang))].join(" ");
      // The draft started from the version the form expected; the diff shows what the winner changed.
      const base = Number(fields.get("expectedLatestVersion"));
      const link =
        conflict && Number.isInteger(winner) && Number.isInteger(base) && base >= 1 && winner > base
          ? { href: diffHref(head.id, base, winner), text: fill(s.conflictDiff, { from: base, to: winner }) }
          : undefined;
      return renderEditor(
        identity,
        { ...call, head },
        { status: err.status, message, ...(link && { link }), problems: bundleProblems(err.details) },
      );
    }
  });
  return async (req) => ((req.header("content-type") ?? "").startsWith("application/json") ? json(req) : form(req));
};

/** The script's publish call: `note` and `expectedLatestVersion`, each used only when well typed (publish). */
const publishFields = z.object({ note: z.unknown(), expectedLatestVersion: z.unknown() }).partial();

async function publish(identity: SiteIdentity, call: DesignCall, note: unknown, expected: unknown) {
  const published = await publishVersion(
    {
      workspaceId: call.grant.workspaceId,
      designId: call.head.id,
      source: { kind: "draft" },
      ...(typeof note === "string" && note.trim() && { note: note.trim().slice(0, 1000) }),
      ...(typeof expected === "number" &&
        Number.isInteger(expected) &&
        expected >= 0 && { expectedLatestVersion: expected }),
      // Who published, as the design API writes it for a session: the user's e-mail.
      createdBy: (await identity.emailOf(call.userId)) ?? call.userId,
    },
    await publishDeps(),
  );
  await auditDesign(call.grant, "design.publish", `${call.head.id}@${published.version}`);
  return published;
}

/** Problems with a file are listed with their place; the rest go in the message. */
const bundleProblems = (details: ErrorDetail[]): BundleProblem[] =>
  details.filter((d) => d.file).map((d) => ({ ...d, file: d.file! }));
