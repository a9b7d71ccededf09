import { type SiteIdentity, siteIdentity } from "./identity.ts";
import { SITE_CSS } from "./site-css.ts";
import { siteHandler } from "./site-edge.ts";
import type { PageHandler, SitePage } from "./site-types.ts";

/**
 * A page whose module is imported on its first request: a cold start loads the modules of the page it
 * answers, not every page's (the studio's checks, LiquidJS, the OpenAPI document). A failed import is
 * tried again by the next request.
 */
function lazy<M>(load: () => Promise<M>, make: (module: M) => PageHandler): PageHandler {
  let page: Promise<PageHandler> | undefined;
  return async (req) => {
    page ??= load()
      .then(make)
      .catch((err: unknown) => {
        page = undefined;
        throw err;
      });
    return (await page)(req);
  };
}

/** Each page's module, loaded by `lazy`. */
const apiDocs = () => import("./pages/api-docs.ts");
const designDraft = () => import("./studio/pages/design-draft.ts");
const designEditor = () => import("./studio/pages/design-editor.ts");
const designHistory = () => import("./studio/pages/design-history.ts");
const designs = () => import("./studio/pages/designs.ts");
const galleryPage = () => import("./studio/pages/gallery-page.ts");
const galleryShare = () => import("./studio/pages/gallery-share.ts");
const designsActions = () => import("./studio/pages/designs-actions.ts");
const errorDocs = () => import("./pages/error-docs.ts");
const home = () => import("./pages/home.ts");
const fileView = () => import("./pages/file-view.ts");
const invitations = () => import("./pages/invitations.ts");
const login = () => import("./pages/login.ts");
const outputHistory = () => import("./pages/output-history.ts");
const settings = () => import("./pages/settings.ts");
const versionSample = () => import("./studio/pages/version-sample.ts");
const settingsActions = () => import("./pages/settings-actions.ts");
const records = () => import("./pages/records.ts");

/**
 * The site's pages (`{site}`) as data: methods, path pattern (`:name` is one
 * path segment), page handler, and the header profile where it is not the page one.
 * Every other path is the 404 page; a known path asked with another method, 405.
 */
export const siteRoutes = (identity: SiteIdentity): SitePage[] => [
  { methods: ["GET"], path: "/", page: lazy(home, (m) => m.homePage(identity)) },
  { methods: ["GET"], path: "/assets/site.css", page: stylesheet },
  { methods: ["GET", "POST"], path: "/login", page: lazy(login, (m) => m.loginPage(identity)) },
  { methods: ["POST"], path: "/logout", page: lazy(login, (m) => m.logoutAction(identity)) },
  { methods: ["GET"], path: "/docs/errors", page: lazy(errorDocs, (m) => m.errorDocsPage(identity)) },
  { methods: ["GET"], path: "/ja/docs/errors", page: lazy(errorDocs, (m) => m.errorDocsPage(identity)) },
  { methods: ["GET"], path: "/docs/api", page: lazy(apiDocs, (m) => m.apiDocsPage(identity)) },
  { methods: ["GET"], path: "/ja/docs/api", page: lazy(apiDocs, (m) => m.apiDocsPage(identity)) },
  { methods: ["GET", "POST"], path: "/file/:requestId/:fileId", page: lazy(fileView, (m) => m.fileViewPage(identity)) },
  {
    methods: ["GET"],
    path: "/file/:requestId/:fileId/preview",
    page: lazy(fileView, (m) => m.fileBytes(identity, "inline")),
    headers: "preview",
  },
  {
    methods: ["GET"],
    path: "/file/:requestId/:fileId/download",
    page: lazy(fileView, (m) => m.fileBytes(identity, "attachment")),
  },
  {
    methods: ["GET"],
    path: "/file/:requestId/:fileId/pages/:page.png",
    page: lazy(fileView, (m) => m.filePageImage(identity)),
  },
  {
    methods: ["POST"],
    path: "/file/:requestId/:fileId/invitations",
    page: lazy(invitations, (m) => m.invitationsAction(identity)),
  },
  { methods: ["GET"], path: "/output-history", page: lazy(outputHistory, (m) => m.outputHistoryList(identity)) },
  {
    methods: ["GET"],
    path: "/output-history/:requestId",
    page: lazy(outputHistory, (m) => m.outputHistoryRequest(identity)),
  },
  {
    methods: ["GET"],
    path: "/output-history/:requestId/download",
    page: lazy(outputHistory, (m) => m.outputHistoryZip(identity)),
  },
  // Kept records (shared/records/README.md#the-site-page): search, export, each PDF.
  { methods: ["GET"], path: "/records", page: lazy(records, (m) => m.recordsPage(identity)) },
  { methods: ["GET"], path: "/ja/records", page: lazy(records, (m) => m.recordsPage(identity)) },
  { methods: ["GET"], path: "/records/export", page: lazy(records, (m) => m.recordsExport(identity)) },
  { methods: ["GET"], path: "/ja/records/export", page: lazy(records, (m) => m.recordsExport(identity)) },
  {
    methods: ["GET"],
    path: "/records/:recordId/pdf",
    page: lazy(records, (m) => m.recordPdf(identity)),
    headers: "preview",
  },
  { methods: ["GET"], path: "/settings", page: lazy(settings, (m) => m.settingsPage(identity)) },
  {
    methods: ["POST"],
    path: "/settings/:workspaceId/hooks",
    page: lazy(settingsActions, (m) => m.settingsAction(identity, "create")),
  },
  {
    methods: ["POST"],
    path: "/settings/:workspaceId/hooks/:endpointId/:action",
    page: lazy(settingsActions, (m) => m.settingsAction(identity, "endpoint")),
  },
  {
    methods: ["POST"],
    path: "/settings/:workspaceId/key-rotate",
    page: lazy(settingsActions, (m) => m.settingsAction(identity, "key-rotate")),
  },
  // The design studio (README.md: "The design studio"): only the editor loads a script, a static
  // file the site does not serve (shared/definitions/static-assets.ts); an unknown one is the 404 page.
  { methods: ["GET"], path: "/designs", page: lazy(designs, (m) => m.designsPage(identity)) },
  { methods: ["POST"], path: "/designs", page: lazy(designsActions, (m) => m.createDesignAction(identity)) },
  {
    methods: ["GET"],
    path: "/designs/:designId",
    page: lazy(designEditor, (m) => m.editorPage(identity)),
    headers: "studio",
  },
  {
    methods: ["GET"],
    path: "/designs/:designId/thumbnail",
    page: lazy(designsActions, (m) => m.designThumbnail(identity)),
  },
  {
    methods: ["GET"],
    path: "/designs/:designId/archive",
    page: lazy(designsActions, (m) => m.archiveConfirmPage(identity)),
  },
  {
    methods: ["POST"],
    path: "/designs/:designId/archive",
    page: lazy(designsActions, (m) => m.archiveAction(identity)),
  },
  { methods: ["GET"], path: "/designs/:designId/draft", page: lazy(designDraft, (m) => m.draftRead(identity)) },
  { methods: ["PUT"], path: "/designs/:designId/draft", page: lazy(designDraft, (m) => m.draftWrite(identity)) },
  {
    methods: ["POST"],
    path: "/designs/:designId/draft",
    page: lazy(designEditor, (m) => m.draftFormAction(identity)),
    headers: "studio",
  },
  { methods: ["POST"], path: "/designs/:designId/preview", page: lazy(designDraft, (m) => m.previewCall(identity)) },
  {
    methods: ["POST"],
    path: "/designs/:designId/publish",
    page: lazy(designEditor, (m) => m.publishAction(identity)),
    headers: "studio",
  },
  { methods: ["GET"], path: "/designs/:designId/versions", page: lazy(designHistory, (m) => m.historyPage(identity)) },
  {
    methods: ["GET"],
    path: "/designs/:designId/versions/:version/bundle",
    page: lazy(designHistory, (m) => m.exportVersion(identity)),
  },
  {
    methods: ["GET"],
    path: "/designs/:designId/versions/:version/sample",
    page: lazy(versionSample, (m) => m.samplePage(identity)),
  },
  {
    methods: ["GET"],
    path: "/designs/:designId/versions/:version/sample/pages/:page.png",
    page: lazy(versionSample, (m) => m.samplePageImage(identity)),
  },
  {
    methods: ["POST"],
    path: "/designs/:designId/versions/:version/restore",
    page: lazy(designHistory, (m) => m.restoreAction(identity)),
  },
  { methods: ["POST"], path: "/designs/:designId/share", page: lazy(galleryShare, (m) => m.shareAction(identity)) },
  // The template gallery: anyone browses, copying and withdrawing need a login.
  { methods: ["GET"], path: "/templates", page: lazy(galleryPage, (m) => m.galleryPage(identity)) },
  {
    methods: ["GET"],
    path: "/templates/:templateId/thumbnail",
    page: lazy(galleryPage, (m) => m.galleryThumbnail(identity)),
  },
  {
    methods: ["POST"],
    path: "/templates/:templateId/use",
    page: lazy(galleryPage, (m) => m.useTemplateAction(identity)),
  },
  {
    methods: ["GET"],
    path: "/templates/:templateId/withdraw",
    page: lazy(galleryPage, (m) => m.withdrawConfirmPage(identity)),
  },
  {
    methods: ["POST"],
    path: "/templates/:templateId/withdraw",
    page: lazy(galleryPage, (m) => m.withdrawTemplateAction(identity)),
  },
];

/** The one stylesheet, the same for everyone: cached for an hour. */
const stylesheet: PageHandler = async () => ({
  status: 200,
  text: SITE_CSS,
  contentType: "text/css; charset=utf-8",
  headers: { "Cache-Control": "public, max-age=3600" },
});

export const handler = siteHandler(siteRoutes(siteIdentity), siteIdentity);
