import { html } from "./html.ts";
import { type SiteIdentity, siteIdentity } from "./identity.ts";
import { apiDocsPage } from "./pages/api-docs.ts";
import { errorDocsPage } from "./pages/error-docs.ts";
import { fileBytes, fileViewPage } from "./pages/file-view.ts";
import { invitationsAction } from "./pages/invitations.ts";
import { loginPage, logoutAction } from "./pages/login.ts";
import { outputHistoryList, outputHistoryRequest, outputHistoryZip } from "./pages/output-history.ts";
import { settingsPage } from "./pages/settings.ts";
import { settingsAction } from "./pages/settings-actions.ts";
import { SITE_CSS } from "./site-css.ts";
import { page, route, type SiteRoute } from "./site-edge.ts";
import { siteHandler } from "./site-edge.ts";
import { t } from "./strings.ts";

/** The site's pages (`{site}`, issue 14); every other path is the 404 page. */
export const siteRoutes = (identity: SiteIdentity): SiteRoute[] => [
  route(["GET"], "/", async (req) => {
    const s = t(req.lang);
    const loggedIn = Boolean(await identity.userOf(req.header("cookie")));
    return { status: 200, page: page(req, identity, loggedIn, s.homeTitle, html`<p>${s.homeBody}</p>`) };
  }),
  route(["GET"], "/assets/site.css", async () => ({
    status: 200,
    text: SITE_CSS,
    contentType: "text/css; charset=utf-8",
    headers: { "Cache-Control": "public, max-age=3600" },
  })),
  route(["GET", "POST"], "/login", loginPage(identity)),
  route(["POST"], "/logout", logoutAction()),
  route(["GET"], "/docs/errors", errorDocsPage(identity)),
  route(["GET"], "/ja/docs/errors", errorDocsPage(identity)),
  route(["GET"], "/docs/api", apiDocsPage(identity)),
  route(["GET"], "/ja/docs/api", apiDocsPage(identity)),
  route(["GET", "POST"], "/file/:requestId/:fileId", fileViewPage(identity)),
  route(["GET"], "/file/:requestId/:fileId/preview", fileBytes(identity, "inline"), "preview"),
  route(["GET"], "/file/:requestId/:fileId/download", fileBytes(identity, "attachment")),
  route(["POST"], "/file/:requestId/:fileId/invitations", invitationsAction(identity)),
  route(["GET"], "/output-history", outputHistoryList(identity)),
  route(["GET"], "/output-history/:requestId", outputHistoryRequest(identity)),
  route(["GET"], "/output-history/:requestId/download", outputHistoryZip(identity)),
  route(["GET"], "/settings", settingsPage(identity)),
  route(["POST"], "/settings/:workspaceId/hooks", settingsAction(identity, "create")),
  route(["POST"], "/settings/:workspaceId/hooks/:endpointId/:action", settingsAction(identity, "endpoint")),
  route(["POST"], "/settings/:workspaceId/key-rotate", settingsAction(identity, "key-rotate")),
];

export const handler = siteHandler(siteRoutes(siteIdentity), siteIdentity);
