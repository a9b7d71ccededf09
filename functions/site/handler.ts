import { type SiteIdentity, siteIdentity } from "./identity.ts";
import { apiDocsPage } from "./pages/api-docs.ts";
import { draftRead, draftWrite, previewCall } from "./studio/pages/design-draft.ts";
import { draftFormAction, editorPage, publishAction } from "./studio/pages/design-editor.ts";
import { exportVersion, historyPage, restoreAction } from "./studio/pages/design-history.ts";
import { designsPage } from "./studio/pages/designs.ts";
import {
  galleryPage,
  galleryThumbnail,
  useTemplateAction,
  withdrawConfirmPage,
  withdrawTemplateAction,
} from "./studio/pages/gallery-page.ts";
import { shareAction } from "./studio/pages/gallery-share.ts";
import {
  archiveAction,
  archiveConfirmPage,
  createDesignAction,
  designThumbnail,
} from "./studio/pages/designs-actions.ts";
import { errorDocsPage } from "./pages/error-docs.ts";
import { homePage } from "./pages/home.ts";
import { fileBytes, filePageImage, fileViewPage } from "./pages/file-view.ts";
import { invitationsAction } from "./pages/invitations.ts";
import { loginPage, logoutAction } from "./pages/login.ts";
import { outputHistoryList, outputHistoryRequest, outputHistoryZip } from "./pages/output-history.ts";
import { settingsPage } from "./pages/settings.ts";
import { samplePage, samplePageImage } from "./studio/pages/version-sample.ts";
import { settingsAction } from "./pages/settings-actions.ts";
import { SITE_CSS } from "./site-css.ts";
import { siteHandler } from "./site-edge.ts";
import type { PageHandler, SitePage } from "./site-types.ts";

/**
 * The site's pages (`{site}`) as data: methods, path pattern (`:name` is one
 * path segment), page handler, and the header profile where it is not the page one.
 * Every other path is the 404 page; a known path asked with another method, 405.
 */
export const siteRoutes = (identity: SiteIdentity): SitePage[] => [
  { methods: ["GET"], path: "/", page: homePage(identity) },
  { methods: ["GET"], path: "/assets/site.css", page: stylesheet },
  { methods: ["GET", "POST"], path: "/login", page: loginPage(identity) },
  { methods: ["POST"], path: "/logout", page: logoutAction(identity) },
  { methods: ["GET"], path: "/docs/errors", page: errorDocsPage(identity) },
  { methods: ["GET"], path: "/ja/docs/errors", page: errorDocsPage(identity) },
  { methods: ["GET"], path: "/docs/api", page: apiDocsPage(identity) },
  { methods: ["GET"], path: "/ja/docs/api", page: apiDocsPage(identity) },
  { methods: ["GET", "POST"], path: "/file/:requestId/:fileId", page: fileViewPage(identity) },
  {
    methods: ["GET"],
    path: "/file/:requestId/:fileId/preview",
    page: fileBytes(identity, "inline"),
    headers: "preview",
  },
  { methods: ["GET"], path: "/file/:requestId/:fileId/download", page: fileBytes(identity, "attachment") },
  { methods: ["GET"], path: "/file/:requestId/:fileId/pages/:page.png", page: filePageImage(identity) },
  { methods: ["POST"], path: "/file/:requestId/:fileId/invitations", page: invitationsAction(identity) },
  { methods: ["GET"], path: "/output-history", page: outputHistoryList(identity) },
  { methods: ["GET"], path: "/output-history/:requestId", page: outputHistoryRequest(identity) },
  { methods: ["GET"], path: "/output-history/:requestId/download", page: outputHistoryZip(identity) },
  { methods: ["GET"], path: "/settings", page: settingsPage(identity) },
  { methods: ["POST"], path: "/settings/:workspaceId/hooks", page: settingsAction(identity, "create") },
  {
    methods: ["POST"],
    path: "/settings/:workspaceId/hooks/:endpointId/:action",
    page: settingsAction(identity, "endpoint"),
  },
  { methods: ["POST"], path: "/settings/:workspaceId/key-rotate", page: settingsAction(identity, "key-rotate") },
  // The design studio (README.md: "The design studio"): only the editor loads a script, a static
  // file the site does not serve (shared/definitions/static-assets.ts); an unknown one is the 404 page.
  { methods: ["GET"], path: "/designs", page: designsPage(identity) },
  { methods: ["POST"], path: "/designs", page: createDesignAction(identity) },
  { methods: ["GET"], path: "/designs/:designId", page: editorPage(identity), headers: "studio" },
  { methods: ["GET"], path: "/designs/:designId/thumbnail", page: designThumbnail(identity) },
  { methods: ["GET"], path: "/designs/:designId/archive", page: archiveConfirmPage(identity) },
  { methods: ["POST"], path: "/designs/:designId/archive", page: archiveAction(identity) },
  { methods: ["GET"], path: "/designs/:designId/draft", page: draftRead(identity) },
  { methods: ["PUT"], path: "/designs/:designId/draft", page: draftWrite(identity) },
  { methods: ["POST"], path: "/designs/:designId/draft", page: draftFormAction(identity), headers: "studio" },
  { methods: ["POST"], path: "/designs/:designId/preview", page: previewCall(identity) },
  { methods: ["POST"], path: "/designs/:designId/publish", page: publishAction(identity), headers: "studio" },
  { methods: ["GET"], path: "/designs/:designId/versions", page: historyPage(identity) },
  { methods: ["GET"], path: "/designs/:designId/versions/:version/bundle", page: exportVersion(identity) },
  { methods: ["GET"], path: "/designs/:designId/versions/:version/sample", page: samplePage(identity) },
  {
    methods: ["GET"],
    path: "/designs/:designId/versions/:version/sample/pages/:page.png",
    page: samplePageImage(identity),
  },
  { methods: ["POST"], path: "/designs/:designId/versions/:version/restore", page: restoreAction(identity) },
  { methods: ["POST"], path: "/designs/:designId/share", page: shareAction(identity) },
  // The template gallery: anyone browses, copying and withdrawing need a login.
  { methods: ["GET"], path: "/templates", page: galleryPage(identity) },
  { methods: ["GET"], path: "/templates/:templateId/thumbnail", page: galleryThumbnail(identity) },
  { methods: ["POST"], path: "/templates/:templateId/use", page: useTemplateAction(identity) },
  { methods: ["GET"], path: "/templates/:templateId/withdraw", page: withdrawConfirmPage(identity) },
  { methods: ["POST"], path: "/templates/:templateId/withdraw", page: withdrawTemplateAction(identity) },
];

/** The one stylesheet, the same for everyone: cached for an hour. */
const stylesheet: PageHandler = async () => ({
  status: 200,
  text: SITE_CSS,
  contentType: "text/css; charset=utf-8",
  headers: { "Cache-Control": "public, max-age=3600" },
});

export const handler = siteHandler(siteRoutes(siteIdentity), siteIdentity);
