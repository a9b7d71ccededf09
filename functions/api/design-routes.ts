import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { bundleZip } from "#shared/authoring/bundle-codec.ts";
import { parsePage } from "#shared/designs/design-pages.ts";
import {
  activeDesign,
  archiveDesign,
  designDetail,
  discardDraft,
  draftBody,
  listDesignsPage,
  listVersionsPage,
  patchDesign,
  saveDraft,
  versionBundle,
  versionDetail,
  shareDesignVersion,
  versionOf,
} from "#shared/authoring/design-lifecycle.ts";
import { getBundle } from "#shared/designs/design-store.ts";
import { getTemplate, withdrawTemplate } from "#shared/designs/gallery.ts";
import { templateDetail } from "#shared/designs/gallery-api.ts";
import { patchBody, shareBody } from "#shared/authoring/request-bodies.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { type DesignRoute, designHandler, jsonObjectBody } from "#shared/http/design-handler.ts";
import { templateThumbnailUrl } from "#shared/identity/public-templates.ts";
import { designApiText } from "./design-api-text.ts";

const noStore = { "Cache-Control": "no-store" };

const zipAnswer = (zip: Buffer, name: string): ApiResult => ({
  status: 200,
  contentType: "application/zip",
  body: zip,
  headers: { ...noStore, "Content-Disposition": `attachment; filename="${name.replace(/[^\w.-]/g, "_")}.zip"` },
});

/**
 * The design API's reads and its changes that render nothing (shared/authoring/README.md):
 * lists, details, versions, bundles, drafts, archive, and the gallery's share, withdraw and read.
 * Publishing and preview render, so they live in design-render.ts (a Chromium function).
 */
export const routes: DesignRoute[] = [
  {
    method: "GET",
    path: "/designs",
    operation: "designs:read",
    run: async (req, { grant }) => {
      const archived = req.query("archived") === "true";
      if (archived && !grant.admin)
        throw new PlatenError("WORKSPACE_ROLE_DENIED", {
          details: [
            {
              text: designApiText.archivedNeedsAdmin,
            },
          ],
        });
      const body = await listDesignsPage(
        grant.workspaceId,
        { page: parsePage(req.query("page")), q: req.query("q"), archived },
        config().baseUrl,
      );
      return { status: 200, headers: noStore, json: body };
    },
  },
  {
    method: "GET",
    path: "/designs/{designId}",
    operation: "designs:read",
    run: async (req, { grant }) => ({
      status: 200,
      headers: noStore,
      json: designDetail(await activeDesign(grant.workspaceId, req.path("designId")), config().baseUrl),
    }),
  },
  {
    method: "PATCH",
    path: "/designs/{designId}",
    operation: "designs:write",
    run: async (req, { grant, body, audit }) => {
      const fields = body(patchBody);
      const head = await patchDesign(grant.workspaceId, req.path("designId"), fields, systemClock);
      await audit("design.update", head.id);
      return { status: 200, headers: noStore, json: designDetail(head, config().baseUrl) };
    },
  },
  {
    method: "DELETE",
    path: "/designs/{designId}",
    operation: "designs:write",
    run: async (req, { grant, audit }) => {
      await archiveDesign(grant.workspaceId, req.path("designId"), systemClock);
      await audit("design.archive", req.path("designId"));
      return { status: 204, headers: noStore, body: Buffer.alloc(0), contentType: "application/json" };
    },
  },
  {
    method: "GET",
    path: "/designs/{designId}/versions",
    operation: "designs:read",
    run: async (req, { grant }) => ({
      status: 200,
      headers: noStore,
      json: await listVersionsPage(grant.workspaceId, req.path("designId"), parsePage(req.query("page"))),
    }),
  },
  {
    method: "GET",
    path: "/designs/{designId}/versions/{version}",
    operation: "designs:read",
    run: async (req, { grant }) => ({
      status: 200,
      headers: { "Cache-Control": "private, max-age=86400, immutable" },
      json: versionDetail(await versionOf(grant.workspaceId, req.path("designId"), req.path("version"))),
    }),
  },
  {
    method: "GET",
    path: "/designs/{designId}/versions/{version}/bundle",
    operation: "designs:read",
    run: async (req, { grant }) => {
      const version = await versionOf(grant.workspaceId, req.path("designId"), req.path("version"));
      return zipAnswer(await bundleZip(await versionBundle(version)), `${version.designId}-v${version.version}`);
    },
  },
  {
    method: "GET",
    path: "/designs/{designId}/draft",
    operation: "designs:read",
    run: async (req, { grant }) => ({
      status: 200,
      headers: noStore,
      json: await draftBody(grant.workspaceId, req.path("designId")),
    }),
  },
  {
    method: "PUT",
    path: "/designs/{designId}/draft",
    operation: "designs:write",
    run: async (req, { grant, audit }) => {
      const saved = await saveDraft(grant.workspaceId, req.path("designId"), jsonObjectBody(req), systemClock);
      await audit("design.draft-save", req.path("designId"));
      return { status: 200, headers: noStore, json: saved };
    },
  },
  {
    method: "DELETE",
    path: "/designs/{designId}/draft",
    operation: "designs:write",
    run: async (req, { grant, audit }) => {
      await discardDraft(grant.workspaceId, req.path("designId"));
      await audit("design.draft-delete", req.path("designId"));
      return { status: 204, headers: noStore, body: Buffer.alloc(0), contentType: "application/json" };
    },
  },
  {
    method: "POST",
    path: "/templates",
    operation: "templates:share",
    run: async (_req, { grant, body, audit }) => {
      const input = body(shareBody);
      const { template, version } = await shareDesignVersion(grant.workspaceId, input, systemClock);
      await audit("template.share", template.id, { designId: input.designId, version: String(version.version) });
      return { status: 201, headers: noStore, json: templateDetail(template, templateThumbnailUrl(template.id)) };
    },
  },
  {
    method: "GET",
    path: "/templates/{templateId}",
    operation: "templates:read",
    run: async (req) => {
      const template = await getTemplate(req.path("templateId"));
      return { status: 200, headers: noStore, json: templateDetail(template, templateThumbnailUrl(template.id)) };
    },
  },
  {
    method: "GET",
    path: "/templates/{templateId}/bundle",
    operation: "templates:read",
    run: async (req) => {
      const template = await getTemplate(req.path("templateId"));
      return zipAnswer(await bundleZip(await getBundle(template.bundleKey)), `template-${template.id}`);
    },
  },
  {
    method: "DELETE",
    path: "/templates/{templateId}",
    operation: "templates:write",
    run: async (req, { grant, audit }) => {
      await withdrawTemplate(grant.workspaceId, req.path("templateId"));
      await audit("template.withdraw", req.path("templateId"));
      return { status: 204, headers: noStore, body: Buffer.alloc(0), contentType: "application/json" };
    },
  },
];

/** The design API routes that render nothing (the route table's `design-routes` function). */
export const handler = designHandler(routes);
