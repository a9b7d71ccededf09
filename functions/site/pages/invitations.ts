import { systemClock } from "#shared/clock.ts";
import { dynamoInvitationStore, isEmailAddress } from "#shared/site/invitation-store.ts";
import { type Html, html } from "#shared/html/html.ts";
import { type FileVisit, visitFile } from "../file-visit.ts";
import type { SiteIdentity } from "../identity.ts";
import { formRefused, notFound, page } from "../site-edge.ts";
import type { PageHandler, SiteRequest } from "../site-types.ts";
import { csrfAccepted, csrfField } from "../page-parts.ts";
import { t } from "../strings.ts";
import { auditSite } from "../audit.ts";

// The invitations port, on the files table (built once per container).
const invitations = dynamoInvitationStore;

/** Admins of the file's workspace see who is invited to a share-type-02 file and change it here. */
export async function invitationSection(req: SiteRequest, visit: FileVisit): Promise<Html> {
  const s = t(req.lang);
  const action = `/file/${visit.requestId}/${visit.fileId}/invitations`;
  const csrf = await csrfField(visit.userId!);
  const rows = (await invitations.list(visit.file!)).map((i) => {
    const removeLabel = `${s.invitationsRemove} ${i.email}`;
    return html`<li>
  ${i.email}
  <form class="inline" method="post" action="${action}">
    ${csrf}
    <input type="hidden" name="action" value="remove">
    <input type="hidden" name="email" value="${i.email}">
    <button type="submit" class="secondary" aria-label="${removeLabel}">${s.invitationsRemove}</button>
  </form>
</li>`;
  });
  const list = rows.length
    ? html`<ul id="invitations">${rows}</ul>`
    : html`<p id="invitations">${s.invitationsNone}</p>`;
  return html`<section aria-labelledby="invitations-title">
<h2 id="invitations-title">${s.invitationsTitle}</h2>
${list}
<form method="post" action="${action}">
  ${csrf}
  <input type="hidden" name="action" value="add">
  <label for="invite-email">${s.invitationsEmail}</label>
  <input type="email" id="invite-email" name="email" required maxlength="254" autocomplete="off">
  <p><button type="submit">${s.invitationsAdd}</button></p>
</form>
</section>`;
}

/** POST `/file/{r}/{f}/invitations`: add or remove one address (admins only, CSRF-checked, audited). */
export const invitationsAction =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const visit = await visitFile(req, identity);
    const s = t(req.lang);
    if (visit.access.kind !== "show" || !visit.access.admin || visit.file!.shareType !== "invited")
      return notFound(req, identity, Boolean(visit.userId));
    const form = req.form();
    if (!(await csrfAccepted(visit.userId!, form))) {
      return formRefused(req, identity, s.invitationsTitle);
    }
    const email = (form.get("email") ?? "").trim();
    if (!isEmailAddress(email)) {
      return {
        status: 400,
        page: page(
          req,
          identity,
          true,
          s.invitationsTitle,
          html`<p class="alert" role="alert">${s.invitationsInvalid}</p>`,
        ),
      };
    }
    const file = visit.file!;
    const add = form.get("action") === "add";
    if (add) await invitations.add(file, email, visit.userId!, systemClock.now());
    else await invitations.remove(file, email);
    await auditSite({
      workspaceId: file.workspaceId,
      actor: visit.userId!,
      action: add ? "file-invitation.add" : "file-invitation.remove",
      target: `${file.requestId}/${file.fileId}`,
      detail: { email: email.toLowerCase() },
    });
    return { status: 303, redirect: `/file/${visit.requestId}/${visit.fileId}` };
  };
