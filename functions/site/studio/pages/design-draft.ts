import { type BundleProblem, BundleInvalid } from "#shared/authoring/bundle-problems.ts";
import { draftBody, saveDraft } from "#shared/authoring/design-lifecycle.ts";
import { systemClock } from "#shared/clock.ts";
import type { Language } from "#shared/errors/language.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import { parseBody } from "#shared/http/request-body.ts";
import type { SiteIdentity } from "../../identity.ts";
import type { PageHandler, SiteRequest } from "../../site-types.ts";
import { DESIGN_WRITE, type DesignCall, DRAFT_READ, designRoute, PREVIEW } from "../design-route.ts";
import { type EditableFields, editableFields, editorBase, fieldsFromForm, withEdits } from "../editable.ts";
import { previewPages } from "../preview-render.ts";
import { auditDesign, jsonAnswer } from "../studio-access.ts";
import { studioText } from "../studio-text.ts";

/** Codes that name an e-invoice rule (BR-06, PEPPOL-EN16931-R010, MODEL…) rather than a kind of error. */
const RULE_ID = /^(BR-|PEPPOL-|PLATEN-|MODEL$)/;

/**
 * A problem list as the page shows it before the script takes over (the form's answer), in the
 * page's language; an e-invoice rule's id comes first unless the message names it already.
 */
export function problemItems(lang: Language, problems: readonly BundleProblem[]): Html[] {
  const s = studioText(lang);
  return problems.map((p) => {
    const where =
      p.line !== undefined ? fill(s.problemAt, { file: p.file, line: p.line, column: p.column ?? 1 }) : p.file;
    const message = p.text[lang] || p.text.en;
    const rule = p.code && RULE_ID.test(p.code) && !message.includes(p.code) ? `${p.code} ` : "";
    return html`<li>${where}${p.field ? ` (${p.field})` : ""}: ${rule}${message}</li>`;
  });
}

/** The editor's fields of a script call's JSON body, or 400 VALIDATION_FAILED (the API's body rules). */
const editsOf = (req: SiteRequest): EditableFields => parseBody(req.bodyText(), editableFields);

/** Saves the editor's fields over the draft (or the latest version) as the draft: `saveDraft` of the design API. */
async function saveEdits(call: DesignCall, edits: EditableFields) {
  const base = await editorBase(call.head);
  const saved = await saveDraft(call.grant.workspaceId, call.head.id, withEdits(base.form, edits), systemClock);
  await auditDesign(call.grant, "design.draft-save", call.head.id);
  return saved;
}

/**
 * The form's save (no script): JSON that does not parse, or that a draft cannot hold (nested too
 * deep), comes back as problems, the text kept.
 */
export async function saveDraftFromForm(call: DesignCall) {
  const read = fieldsFromForm(call.req.form());
  if ("problems" in read) return refusedForm(call, read.problems);
  try {
    return { saved: await saveEdits(call, read.edits) };
  } catch (err) {
    if (err instanceof BundleInvalid) return refusedForm(call, err.problems);
    throw err;
  }
}

/** The editor's form again with the visitor's text and the problems. */
async function refusedForm(call: DesignCall, problems: BundleProblem[]) {
  const base = await editorBase(call.head);
  const form = call.req.form();
  return {
    problems,
    form: {
      ...base.form,
      template: form.get("template") ?? "",
      style: form.get("style") ?? "",
      parameters: form.get("parameters") ?? "",
      sampleParams: form.get("sampleParams") ?? "",
      ...(form.has("einvoiceMapping") && { einvoiceMapping: form.get("einvoiceMapping") ?? "" }),
    },
  };
}

/**
 * GET `/designs/{designId}/draft`: the draft as `GET …/draft` of the design API answers it (404 without one),
 * in the same `design-write` rate class.
 */
export const draftRead = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, DRAFT_READ, "json", async (call) =>
    jsonAnswer(200, await draftBody(call.grant.workspaceId, call.head.id)),
  );

/** PUT `/designs/{designId}/draft` (the script's autosave): `{updatedAt, warnings}`, never refused for what it says. */
export const draftWrite = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, DESIGN_WRITE, "json", async (call) =>
    jsonAnswer(200, await saveEdits(call, editsOf(call.req))),
  );

/**
 * POST `/designs/{designId}/preview`: the editor's fields over the design, rendered by the design
 * API's preview (the mark, the limits, the `preview` rate class: 60 a minute per workspace, counted
 * before the body is read), its first pages as PNG data URLs. A bundle with problems is 422
 * DESIGN_BUNDLE_INVALID with each problem's file, line and column, as the API answers it.
 */
export const previewCall = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, PREVIEW, "json", async (call) => {
    const edits = editsOf(call.req);
    const base = await editorBase(call.head);
    const { previewSource } = await import("#shared/authoring/preview.ts");
    const source = await previewSource(call.grant.workspaceId, { bundle: withEdits(base.form, edits) });
    const { pageCount, pages } = await previewPages(source);
    return jsonAnswer(200, {
      pageCount,
      pages: pages.map((png) => `data:image/png;base64,${png.toString("base64")}`),
    });
  });
