// First: starts Chromium before the other modules load (a cold start's init phase).
import { workspaceHasSigningLabel } from "#shared/signing/identity-store.ts";
import "#shared/render/launch-at-init.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { strictBundle } from "#shared/authoring/bundle-rules.ts";
import { activeDesign, designDetail, publishVersion, readBundleBody } from "#shared/authoring/design-lifecycle.ts";
import { getBundle, getDesignHead, getThumbnail } from "#shared/designs/design-store.ts";
import { getTemplate } from "#shared/designs/gallery.ts";
import { previewSource, renderPreview } from "#shared/authoring/preview.ts";
import { previewBody } from "#shared/authoring/request-bodies.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { thumbnailRenderer } from "#shared/authoring/thumbnails.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type DesignRoute, designHandler } from "#shared/http/design-handler.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { getRenderer, launchAtInit } from "#shared/render/renderer.ts";
import { designApiText } from "./design-api-text.ts";

launchAtInit();

const publishDeps = {
  clock: systemClock,
  renderThumbnail: thumbnailRenderer(),
  signingLabelExists: workspaceHasSigningLabel,
};
const noStore = { "Cache-Control": "no-store" };

/**
 * The design API's routes that render (shared/authoring/README.md): creating a design and
 * publishing a version render the sample document's thumbnail (which refuses a sample over
 * the document limits), and a preview renders a marked PDF or one page of it as PNG.
 */
export const routes: DesignRoute[] = [
  {
    method: "POST",
    path: "/designs",
    operation: "designs:write",
    run: async (req, { grant, audit, who }) => {
      const { source, note, expectedLatestVersion } = await readBundleBody({
        contentType: req.header("content-type"),
        bytes: req.bodyBytes(),
        query: req.query,
      });
      if (expectedLatestVersion !== undefined)
        throw new PlatenError("VALIDATION_FAILED", {
          details: [
            {
              field: "expectedLatestVersion",
              text: designApiText.newDesignNoVersions,
            },
          ],
        });
      if (source.kind === "draft")
        throw new PlatenError("VALIDATION_FAILED", {
          details: [
            {
              field: "from",
              text: designApiText.newDesignNoDraft,
            },
          ],
        });
      const createdBy = await who();
      const published =
        source.kind === "template"
          ? await copyTemplate(grant.workspaceId, source, createdBy, note)
          : await publishDesign(
              { workspaceId: grant.workspaceId, bundle: strictBundle(source.raw), createdBy, ...(note && { note }) },
              publishDeps,
            );
      await audit("design.create", published.id, {
        version: String(published.version),
        ...(source.kind === "template" && { fromTemplate: source.templateId }),
      });
      const head = await getDesignHead(grant.workspaceId, published.id);
      return { status: 201, headers: noStore, json: designDetail(head!, config().baseUrl) };
    },
  },
  {
    method: "POST",
    path: "/designs/{designId}/versions",
    operation: "designs:write",
    run: async (req, { grant, audit, who }) => {
      const designId = req.path("designId");
      await activeDesign(grant.workspaceId, designId);
      const { source, note, expectedLatestVersion } = await readBundleBody({
        contentType: req.header("content-type"),
        bytes: req.bodyBytes(),
        query: req.query,
      });
      if (source.kind === "template")
        throw new PlatenError("VALIDATION_FAILED", {
          details: [
            {
              field: "fromTemplate",
              text: designApiText.galleryCopyIsNew,
            },
          ],
        });
      const published = await publishVersion(
        {
          workspaceId: grant.workspaceId,
          designId,
          source,
          ...(note && { note }),
          ...(expectedLatestVersion !== undefined && { expectedLatestVersion }),
          createdBy: await who(),
        },
        publishDeps,
      );
      await audit("design.publish", `${designId}@${published.version}`);
      return {
        status: 201,
        headers: noStore,
        json: { id: published.id, version: published.version, sha256: published.sha256 },
      };
    },
  },
  {
    method: "POST",
    path: "/designs/preview",
    operation: "designs:read",
    run: async (req, { grant, body }) => {
      const format = req.query("format") ?? "pdf";
      if (format !== "pdf" && format !== "png")
        throw new PlatenError("VALIDATION_FAILED", {
          details: [{ field: "format", text: designApiText.previewFormat }],
        });
      const pageRaw = req.query("page") ?? "1";
      // A PDF has every page: `page` is the PNG's.
      if (format === "png" && !/^[1-9]\d{0,3}$/.test(pageRaw))
        throw new PlatenError("VALIDATION_FAILED", {
          details: [{ field: "page", text: designApiText.previewPage }],
        });
      // Admitted already (design-handler.ts): over the limit the answer was 429 before the body was
      // read or its bundle checked.
      const source = await previewSource(grant.workspaceId, body(previewBody));
      const rendered = await renderPreview(getRenderer(), source);
      const headers = { ...noStore, "X-Page-Count": String(rendered.pageCount) };
      if (format === "pdf") return { status: 200, headers, contentType: "application/pdf", body: rendered.pdf };
      const page = Number(pageRaw);
      if (page > rendered.pageCount)
        throw new PlatenError("VALIDATION_FAILED", {
          details: [
            {
              field: "page",
              text: fillBoth(designApiText.previewPages, { pages: rendered.pageCount }),
            },
          ],
        });
      const png = await getRenderer().pageImage(rendered.pdf, page);
      return { status: 200, headers, contentType: "image/png", body: png };
    },
  },
];

/** A gallery template copied into a workspace as a new design: the same bundle, so the same documents. */
async function copyTemplate(
  workspaceId: string,
  { templateId, label }: { templateId: string; label?: string },
  createdBy: string,
  note: string | undefined,
) {
  const template = await getTemplate(templateId);
  const [bundle, thumbnail] = await Promise.all([
    getBundle(template.bundleKey),
    template.thumbnailKey ? getThumbnail(template.thumbnailKey) : undefined,
  ]);
  return publishDesign(
    {
      workspaceId,
      bundle,
      createdBy,
      note: note ?? `copied from template ${template.id}`,
      ...(label && { label }),
      ...(thumbnail && { thumbnail }),
    },
    publishDeps,
  );
}

/** The design API routes that render (the route table's `design-render` function). */
export const handler = designHandler(routes);
