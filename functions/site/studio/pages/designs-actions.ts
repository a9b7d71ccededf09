import { rawFromJsonForm, rawFromZip } from "#shared/authoring/bundle-codec.ts";
import { strictBundle } from "#shared/authoring/bundle-rules.ts";
import { archiveDesign } from "#shared/authoring/design-lifecycle.ts";
import { systemClock } from "#shared/clock.ts";
import { getDesignVersion, getThumbnail } from "#shared/designs/design-store.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { isPlatenError, type PlatenError } from "#shared/errors/platen-error.ts";
import type { Language } from "#shared/errors/language.ts";
import { html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import type { SiteIdentity } from "../../identity.ts";
import { csrfAccepted, csrfField } from "../../page-parts.ts";
import { formRefused, notFound, page } from "../../site-edge.ts";
import type { PageHandler } from "../../site-types.ts";
import { pngAnswer } from "../binary-answers.ts";
import { copyTemplate } from "../template-copy.ts";
import { designRoute } from "../design-route.ts";
import { multipartParts, partFields } from "../multipart.ts";
import { publishDeps } from "../preview-render.ts";
import { admitRate, auditDesign, sessionGrant } from "../studio-access.ts";
import { studioText } from "../studio-text.ts";
import starter from "../starter.json" with { type: "json" };
import { requireUser } from "../../visitor.ts";
import { renderDesigns } from "./designs.ts";

/** A refused change's reason, with each detail's place (a bundle's file, line and column). */
export function problemText(lang: Language, err: PlatenError): string {
  const s = studioText(lang);
  const details = err.details.map((d) => {
    const where = d.file ? `${d.file}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ""}: ` : "";
    return `${where}${detailMessage(d, lang)}`;
  });
  return [s.problem, ...(details.length ? details : [err.message])].join(" ");
}

/**
 * POST `/designs`: a new design, blank (the starter bundle), from a gallery template, or from an
 * uploaded bundle zip (a multipart form: works without script). ADMIN only, CSRF-checked; a
 * refused bundle shows its problems on the designs page with the answer's status (422).
 */
export const createDesignAction =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const multipart = (req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
    const parts = multipart ? multipartParts(req.header("content-type"), req.bodyBytes()) : [];
    const fields = multipart ? partFields(parts) : req.form();
    const s = studioText(req.lang);
    const workspaceId = fields.get("workspace") ?? "";
    let access: Awaited<ReturnType<typeof sessionGrant>>;
    try {
      access = await sessionGrant(identity, user.userId, workspaceId, "designs:write");
    } catch (err) {
      if (!isPlatenError(err)) throw err;
      return formRefused(req, identity, s.designsTitle);
    }
    if (!access) return notFound(req, identity, true);
    if (!(await csrfAccepted(user.userId, fields))) return formRefused(req, identity, s.designsTitle);
    // A design write, counted before the bundle is read or checked: over the limit the refusal page, 429.
    await admitRate(access.grant, "design-write");
    const createdBy = (await identity.emailOf(user.userId)) ?? user.userId;
    try {
      const kind = fields.get("kind");
      let designId: string;
      if (kind === "template") {
        designId = (await copyTemplate(access.grant, fields.get("templateId") ?? "", createdBy)).id;
      } else {
        const raw =
          kind === "upload"
            ? await rawFromZip(parts.find((p) => p.name === "bundle")?.body ?? Buffer.alloc(0))
            : rawFromJsonForm({ ...starter, label: (fields.get("label") ?? "").trim() || s.starterLabel });
        const published = await publishDesign(
          { workspaceId, bundle: strictBundle(raw), createdBy },
          await publishDeps(),
        );
        await auditDesign(access.grant, "design.create", published.id, { version: String(published.version) });
        designId = published.id;
      }
      return { status: 303, redirect: `/designs/${designId}` };
    } catch (err) {
      if (!isPlatenError(err) || err.status >= 500) throw err;
      const all = await identity.workspacesOf(user.userId);
      const view = { userId: user.userId, workspaceId, role: access.role, all, problem: problemText(req.lang, err) };
      return renderDesigns(req, identity, view, err.status);
    }
  };

/** GET `/designs/{designId}/archive`: the confirmation (ADMIN), a plain form. */
export const archiveConfirmPage = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:write", "page", async ({ req, userId, head }) => {
    const s = studioText(req.lang);
    const title = fill(s.archiveTitle, { label: head.label });
    const body = html`<p>${s.archiveBody}</p>
<form method="post" action="/designs/${head.id}/archive" id="archive-form">
${await csrfField(userId)}
<p>
  <button type="submit" class="danger" id="archive-confirm">${s.archiveConfirm}</button>
  <a class="button secondary" href="/designs?workspace=${head.workspaceId}">${s.cancel}</a>
</p>
</form>`;
    return { status: 200, page: page(req, identity, true, title, body) };
  });

/** POST `/designs/{designId}/archive`: `DELETE /designs/{designId}` of the design API, then back to the list. */
export const archiveAction = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:write", "page", async ({ grant, head }) => {
    await archiveDesign(grant.workspaceId, head.id, systemClock);
    await auditDesign(grant, "design.archive", head.id);
    return { status: 303, redirect: `/designs?workspace=${encodeURIComponent(head.workspaceId)}` };
  });

/** GET `/designs/{designId}/thumbnail?version=N`: the version's page-1 PNG (members); a version's image never changes. */
export const designThumbnail = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:read", "page", async ({ req, head }) => {
    const wanted = Number(req.query("version") ?? head.latestVersion);
    const version = Number.isInteger(wanted) ? await getDesignVersion(head.workspaceId, head.id, wanted) : undefined;
    const png = version?.thumbnailKey ? await getThumbnail(version.thumbnailKey) : undefined;
    if (!png) return notFound(req, identity, true);
    return pngAnswer(png);
  });
