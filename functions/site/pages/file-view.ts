import { Readable } from "node:stream";
import { systemClock } from "#shared/clock.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { type FileRecord, liveRequestDeps, openPdf } from "#shared/generation/store/index.ts";
import { resolveFileDownload } from "#shared/generation/reads/index.ts";
import { verifyPasscode } from "#shared/generation/requests/index.ts";
import { contentDisposition, pdfFileName } from "#shared/generation/http/index.ts";
import { filePageSource } from "#shared/page-images/file-page-source.ts";
import { pageIndexOf, parsePageNumber } from "#shared/page-images/page-image-cache.ts";
import { s3PageStore } from "#shared/page-images/s3-page-store.ts";
import { takePasscodeAttempt } from "#shared/site/passcode-attempts.ts";
import { GRANT_SECONDS, grantCookieName, issueGrant } from "#shared/site/passcode-grant.ts";
import { siteSecret } from "#shared/site/site-secret.ts";
import { config } from "#shared/aws/config.ts";
import { fill } from "#shared/i18n/texts.ts";
import { html } from "#shared/html/html.ts";
import { type FileVisit, nowSeconds, visitFile } from "../file-visit.ts";
import type { SiteIdentity } from "../identity.ts";
import { cookieAttributes } from "#shared/web/cookies.ts";
import { notFound, page } from "../site-edge.ts";
import type { PageHandler, SiteRequest, SiteResult } from "../site-types.ts";
import { t } from "../strings.ts";
import { pageImageAnswer, pageImagesSection, pagesOrNotice } from "../page-image-views.ts";
import { fileDetails } from "./file-details.ts";
import { invitationSection } from "./invitations.ts";

const fileBase = (v: Pick<FileVisit, "requestId" | "fileId">) => `/file/${v.requestId}/${v.fileId}`;

/** The passcode form (`<form method="post">` with an input named `passcode`). */
function passcodePage(
  req: SiteRequest,
  identity: SiteIdentity,
  visit: FileVisit,
  status: number,
  problem?: string,
): SiteResult {
  const s = t(req.lang);
  const alert = problem ? html`<p class="alert" role="alert" id="passcode-problem">${problem}</p>` : "";
  const invalid = problem ? html` aria-describedby="passcode-problem" aria-invalid="true"` : "";
  const body = html`<p>${s.passcodeBody}</p>
${alert}
<form method="post" action="${fileBase(visit)}">
  <label for="passcode">${s.passcodeLabel}</label>
  <input type="password" id="passcode" name="passcode" autocomplete="off" required maxlength="64"${invalid} autofocus>
  <p><button type="submit">${s.passcodeSubmit}</button></p>
</form>`;
  return { status, page: page(req, identity, Boolean(visit.userId), s.passcodeTitle, body) };
}

/** A POSTed passcode: one attempt taken, then checked against the stored hash; right → grant cookie. */
async function submitPasscode(req: SiteRequest, identity: SiteIdentity, visit: FileVisit): Promise<SiteResult> {
  const s = t(req.lang);
  const attempt = await takePasscodeAttempt(
    { requestId: visit.requestId, fileId: visit.fileId, address: req.sourceIp },
    systemClock,
  );
  if (!attempt.allowed) {
    const result = passcodePage(
      req,
      identity,
      visit,
      429,
      fill(s.passcodeLimited, { minutes: Math.ceil(attempt.retryAfterSeconds / 60) }),
    );
    return { ...result, headers: { "Retry-After": String(attempt.retryAfterSeconds) } };
  }
  const passcode = req.form().get("passcode") ?? "";
  // `verifyPasscode` may become asynchronous (a cheaper KDF off the event loop): awaited either way.
  const correct =
    passcode.length > 0 && passcode.length <= 64 && (await verifyPasscode(passcode, visit.file!.passcodeHash!));
  if (!correct) return passcodePage(req, identity, visit, 403, s.passcodeWrong);
  const value = issueGrant(
    await siteSecret(),
    { requestId: visit.requestId, fileId: visit.fileId, passcodeHash: visit.file!.passcodeHash! },
    nowSeconds(),
  );
  const attributes = cookieAttributes({
    path: fileBase(visit),
    maxAgeSeconds: GRANT_SECONDS,
    https: config().siteUrl.startsWith("https://"),
  });
  return {
    status: 303,
    redirect: fileBase(visit),
    cookies: [`${grantCookieName(visit.fileId)}=${value}; ${attributes}`],
  };
}

/** 410 for a file past its retention, to a visitor who could see it (its page and its bytes alike). */
function gone(req: SiteRequest, identity: SiteIdentity, loggedIn: boolean): SiteResult {
  const s = t(req.lang);
  return { status: 410, page: page(req, identity, loggedIn, s.expiredTitle, html`<p>${s.expiredBody}</p>`) };
}

/** The page images of a stored file: its index read (or made) once, the images drawn when asked for. */
function filePages(req: SiteRequest, file: FileRecord, base: string) {
  return pagesOrNotice(req, async () => {
    const index = await pageIndexOf(filePageSource(file), s3PageStore("files"));
    return pageImagesSection(req, index, {
      image: (n) => `${base}/pages/${n}.png`,
      view: (count) => `${base}?pages=${count}`,
    });
  });
}

/**
 * GET `/file/{requestId}/{fileId}/pages/{n}.png`: one page image, by the same rules as the
 * file's bytes (hidden: 404, expired: 410); drawn on the first request, then read from the cache.
 */
export const filePageImage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const visit = await visitFile(req, identity);
    const loggedIn = Boolean(visit.userId);
    if (visit.access.kind === "expired") return gone(req, identity, loggedIn);
    if (visit.access.kind !== "show" || visit.file!.status !== "done") return notFound(req, identity, loggedIn);
    const missing = () => notFound(req, identity, loggedIn);
    return pageImageAnswer(req, filePageSource(visit.file!), parsePageNumber(req.params.page), "files", missing);
  };

/** How often the page of a file still being stored reloads itself. */
const REFRESH_SECONDS = 2;
const settled = (file: FileRecord) => file.status === "done" || file.status === "failed";

/** GET/POST `/file/{requestId}/{fileId}`. */
export const fileViewPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const visit = await visitFile(req, identity);
    const loggedIn = Boolean(visit.userId);
    switch (visit.access.kind) {
      case "hidden":
        return notFound(req, identity, loggedIn);
      case "expired":
        return gone(req, identity, loggedIn);
      case "passcode":
        return req.method === "POST" ? submitPasscode(req, identity, visit) : passcodePage(req, identity, visit, 200);
    }
    if (req.method === "POST") return { status: 303, redirect: fileBase(visit) };
    const invitations =
      visit.access.admin && visit.file!.shareType === "invited" ? await invitationSection(req, visit) : "";
    const pages = visit.file!.status === "done" ? await filePages(req, visit.file!, fileBase(visit)) : "";
    const body = html`${fileDetails(req.lang, visit.file!, fileBase(visit), pages)}${invitations}`;
    const result: SiteResult = { status: 200, page: page(req, identity, loggedIn, visit.file!.fileName, body) };
    // Not stored or rendered yet: the "being prepared" page reloads itself until it offers the PDF.
    // Still being stored after the wait (a sync file, seconds at most): the page reloads itself.
    // An async file still rendering says so and is reloaded by hand, as before.
    return visit.file!.status === "storing" ? { ...result, headers: { Refresh: String(REFRESH_SECONDS) } } : result;
  };

/**
 * The file's bytes, inline (the "open the PDF" link) or as an attachment (the download link),
 * streamed from the same store and by the same rules as GET /v1/file/download/{r}/{f}.
 */
export const fileBytes =
  (identity: SiteIdentity, disposition: "inline" | "attachment"): PageHandler =>
  async (req) => {
    const visit = await visitFile(req, identity);
    if (visit.access.kind === "expired") return gone(req, identity, Boolean(visit.userId));
    if (visit.access.kind !== "show") return notFound(req, identity, Boolean(visit.userId));
    // visitFile already waited for a file being stored: one not done by now is the page's to explain.
    if (!settled(visit.file!)) return { status: 303, redirect: fileBase(visit) };
    const file = await resolveFileDownload(
      visit.requestId,
      visit.fileId,
      visit.file!.workspaceId,
      liveRequestDeps,
    ).catch((err) => {
      // Not ready (409) or failed (422): the file page says which.
      if (isPlatenError(err) && err.status !== 404) return undefined;
      throw err;
    });
    if (!file) return { status: 303, redirect: fileBase(visit) };
    const pdf = await openPdf(file.s3Key!);
    const header = contentDisposition(pdfFileName(file.fileName));
    return {
      status: 200,
      contentType: "application/pdf",
      stream: Readable.from(pdf.stream),
      contentLength: pdf.bytes,
      headers: { "Content-Disposition": disposition === "inline" ? header.replace(/^attachment/, "inline") : header },
    };
  };
