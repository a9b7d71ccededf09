import { shareDesignVersion } from "#shared/authoring/design-lifecycle.ts";
import { shareBody } from "#shared/authoring/request-bodies.ts";
import { systemClock } from "#shared/clock.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { templateOfDesign } from "#shared/designs/gallery.ts";
import { type Html, html } from "#shared/html/html.ts";
import type { SiteIdentity } from "../../identity.ts";
import { csrfField } from "../../page-parts.ts";
import { page } from "../../site-edge.ts";
import type { PageHandler, SiteResult } from "../../site-types.ts";
import { type DesignCall, designRoute } from "../design-route.ts";
import { auditDesign } from "../studio-access.ts";
import { studioText } from "../studio-text.ts";
import { problemText } from "./designs-actions.ts";

/**
 * The history page's share form (ADMIN): one version of the design into the public gallery,
 * with a description and tags. Prefilled from the design's current gallery entry, if any, since
 * sharing again replaces it.
 */
export async function shareSection(call: DesignCall): Promise<Html> {
  const s = studioText(call.req.lang);
  const { head } = call;
  const current = await templateOfDesign(head.workspaceId, head.id);
  return html`<section aria-labelledby="share-title">
<h2 id="share-title">${s.shareTitle}</h2>
<p class="muted">${s.shareHint}</p>
<form method="post" action="/designs/${head.id}/share" id="share-form">
${await csrfField(call.userId)}
<div>
  <label for="share-version">${s.shareVersion}</label>
  <input type="number" id="share-version" name="version" min="1" max="${head.latestVersion}" value="${head.latestVersion}" required>
</div>
<div>
  <label for="share-description">${s.shareDescription}</label>
  <textarea id="share-description" name="description" rows="3" maxlength="2000">${current?.description ?? head.description ?? ""}</textarea>
</div>
<div>
  <label for="share-tags">${s.shareTags}</label>
  <input type="text" id="share-tags" name="tags" value="${current?.tags.join(" ") ?? ""}" maxlength="500">
</div>
<p><button type="submit">${s.shareButton}</button></p>
</form>
</section>`;
}

/**
 * POST `/designs/{designId}/share`: `POST /templates` of the design API for a session (ADMIN,
 * CSRF), checked by the same body schema; audited as `template.share`. Back to the history page.
 */
export const shareAction = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "templates:share", "page", async ({ req, head, grant }) => {
    const fields = req.form();
    const description = (fields.get("description") ?? "").trim();
    const tags = (fields.get("tags") ?? "").split(/[\s,、]+/).filter(Boolean);
    const parsed = shareBody.safeParse({
      designId: head.id,
      version: Number(fields.get("version")),
      ...(description && { description }),
      ...(tags.length && { tags }),
    });
    // A form's mistake is answered as a page saying what to change, never as an error boundary's 500.
    const refused = (problems: string, status: number): SiteResult => {
      const s = studioText(req.lang);
      const body = html`<p class="alert" role="alert" id="flash">${problems}</p>
<p><a href="/designs/${head.id}/versions">${s.backToHistory}</a></p>`;
      return { status, page: page(req, identity, true, s.shareTitle, body) };
    };
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join(" ");
      return refused(`${studioText(req.lang).problem} ${problems}`, 422);
    }
    let shared: Awaited<ReturnType<typeof shareDesignVersion>>;
    try {
      shared = await shareDesignVersion(grant.workspaceId, parsed.data, systemClock);
    } catch (err) {
      // The workspace's 50 templates (409), a label the schema refuses (400): said on the page.
      if (!isPlatenError(err) || err.status >= 500 || err.status === 404) throw err;
      return refused(problemText(req.lang, err), err.status);
    }
    const { template, version } = shared;
    await auditDesign(grant, "template.share", template.id, { designId: head.id, version: String(version.version) });
    return { status: 303, redirect: `/designs/${head.id}/versions?shared=${version.version}` };
  });
