import { versionOf } from "#shared/authoring/design-lifecycle.ts";
import { config } from "#shared/aws/config.ts";
import type { DesignVersion } from "#shared/designs/design-store.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import { type PageSource, pageIndexOf, parsePageNumber } from "#shared/page-images/page-image-cache.ts";
import { samplePageSource } from "#shared/page-images/sample-pages.ts";
import { s3PageStore } from "#shared/page-images/s3-page-store.ts";
import type { SiteIdentity } from "../../identity.ts";
import { pageImageAnswer, pageImagesSection, pagesOrNotice } from "../../page-image-views.ts";
import { errorCodeLink } from "../../page-parts.ts";
import { notFound, page } from "../../site-edge.ts";
import type { PageHandler, SiteRequest } from "../../site-types.ts";
import { designRoute } from "../design-route.ts";
import { renderVersionSample } from "../preview-render.ts";
import { studioText } from "../studio-text.ts";

/** The version's sample as a page-image source: rendered once, kept beside the version's bundle. */
const sampleSource = (version: DesignVersion): PageSource =>
  samplePageSource(version, {
    store: s3PageStore("designs"),
    renderSample: () => renderVersionSample(version.workspaceId, version.designId, version.version),
  });

const sampleBase = (version: DesignVersion) => `/designs/${version.designId}/versions/${version.version}/sample`;

/** A sample that cannot be rendered (its own fault, the preview rate, a busy renderer) said in place, with its code. */
function sampleRefused(req: SiteRequest, err: Parameters<typeof buildErrorBody>[0]): Html {
  const body = buildErrorBody(err, req.lang, config().siteUrl);
  const details = body.details.map((d) => html`<li>${d.message}</li>`);
  return html`<div class="alert" role="alert" id="pages-refused">
<p>${Array.isArray(body.message) ? body.message.join(" ") : body.message} ${errorCodeLink(req.lang, body.code)}</p>
${details.length ? html`<ul>${details}</ul>` : ""}
</div>`;
}

/**
 * GET `/designs/{designId}/versions/{N}/sample?pages=`: the version's sample document as page
 * images, the first pages at once and more by link, as the file view shows a file.
 */
export const samplePage = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:read", "page", async ({ req, head }) => {
    const s = studioText(req.lang);
    const version = await versionOf(head.workspaceId, head.id, req.params.version ?? "");
    const base = sampleBase(version);
    let status = 200;
    const section = await pagesOrNotice(req, async () =>
      pageImagesSection(req, await pageIndexOf(sampleSource(version), s3PageStore("designs")), {
        image: (n) => `${base}/pages/${n}.png`,
        view: (count) => `${base}?pages=${count}`,
      }),
    ).catch((err: unknown) => {
      if (!isPlatenError(err)) throw err;
      status = err.status;
      return sampleRefused(req, err);
    });
    const body = html`<p><a href="/designs/${head.id}/versions">${s.backToHistory}</a></p>
<p class="muted">${s.sampleAbout}</p>
${section}`;
    const title = fill(s.sampleTitle, { label: head.label, version: version.version });
    return { status, page: page(req, identity, true, title, body) };
  });

/** GET `/designs/{designId}/versions/{N}/sample/pages/{n}.png`: one page of the sample, drawn once then cached. */
export const samplePageImage = (identity: SiteIdentity): PageHandler =>
  designRoute(identity, "designs:read", "page", async ({ req, head }) => {
    const version = await versionOf(head.workspaceId, head.id, req.params.version ?? "");
    const missing = () => notFound(req, identity, true);
    return pageImageAnswer(req, sampleSource(version), parsePageNumber(req.params.page), "designs", missing);
  });
