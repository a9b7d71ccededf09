import type { BucketId } from "#shared/definitions/buckets.ts";
import { isPlatenError, PlatenError } from "#shared/errors/platen-error.ts";
import { type Html, html } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import { logger } from "#shared/observability/logger.ts";
import { type PageSource, pageImageOf } from "#shared/page-images/page-image-cache.ts";
import type { PageIndex } from "#shared/page-images/page-index.ts";
import { s3PageStore } from "#shared/page-images/s3-page-store.ts";
import { RenderError } from "#shared/render/render-error.ts";
import type { SiteRequest, SiteResult } from "./site-types.ts";
import { pngAnswer } from "./studio/binary-answers.ts";
import { jsonError } from "./studio/studio-access.ts";
import { t } from "./strings.ts";

/*
 * Page images of a PDF, drawn on the server (shared/page-images/README.md): what the file view
 * and a design version's sample show instead of a PDF viewer, which phones and headless browsers
 * do not have. Used by pages/file-view.ts and studio/pages/version-sample.ts.
 */

/** Pages a view shows at first, and how many more each "more pages" link adds. */
export const PAGES_AT_ONCE = 3;
/** Width of every page image (Renderer.pageImage's default): the `<img>` says so before it loads. */
const IMAGE_WIDTH_PX = 1000;
/**
 * Private: a browser may keep an image 10 minutes, no shared cache ever. Short, because who may
 * see a file can change (an invitation removed, a passcode grant ended).
 */
const IMAGE_CACHE = "private, max-age=600";

/**
 * How many pages to show: `?pages=N` (the "more pages" link), at least 1 and at most the
 * document's; anything that is not a whole number shows the first {@link PAGES_AT_ONCE}.
 */
export function pagesToShow(req: SiteRequest, pageCount: number): number {
  const raw = req.query("pages");
  const asked = raw !== undefined && /^\d{1,6}$/.test(raw) ? Number(raw) : PAGES_AT_ONCE;
  return Math.max(1, Math.min(pageCount, asked));
}

/** Where a view's images and its "more" link point. */
export interface PageLinks {
  image(pageNumber: number): string;
  /** The view itself showing `count` pages (a link, so it works without script). */
  view(count: number): string;
}

/**
 * The pages section: the first pages as `<img>` with their size and alt text, and a link to
 * more until every page is shown; an encrypted PDF gets a notice instead (nothing of it is drawn).
 */
export function pageImagesSection(req: SiteRequest, index: PageIndex, links: PageLinks): Html {
  const s = t(req.lang);
  const heading = html`<h2 id="pages-title">${s.pagesTitle}</h2>`;
  if (index.encrypted)
    return html`<section aria-labelledby="pages-title" class="page-images">
${heading}
<p class="notice" role="status" id="pages-protected">${s.pagesProtected}</p>
</section>`;
  const count = index.pages.length;
  const shown = pagesToShow(req, count);
  const next = Math.min(count, shown + PAGES_AT_ONCE);
  const more =
    shown < count
      ? html`<p><a id="more-pages" href="${links.view(next)}#page-${shown + 1}">${fill(s.pagesMore, { count: next - shown })}</a></p>`
      : "";
  return html`<section aria-labelledby="pages-title" class="page-images">
${heading}
<p class="muted" id="pages-shown">${fill(s.pagesShown, { shown, count })}</p>
<ol class="pages">
${index.pages.slice(0, shown).map((size, i) => pageItem(req, i + 1, count, size, links))}
</ol>
${more}
</section>`;
}

function pageItem(
  req: SiteRequest,
  pageNumber: number,
  count: number,
  size: { width: number; height: number },
  links: PageLinks,
): Html {
  const height = Math.round((size.height * IMAGE_WIDTH_PX) / size.width);
  // The first pages load at once; pages asked for later load as they scroll into view.
  const loading = pageNumber <= PAGES_AT_ONCE ? "eager" : "lazy";
  const alt = fill(t(req.lang).pageAlt, { page: pageNumber, count });
  return html`<li id="page-${pageNumber}"><img src="${links.image(pageNumber)}" width="${IMAGE_WIDTH_PX}" height="${height}" alt="${alt}" loading="${loading}" decoding="async"></li>`;
}

/**
 * A section whose index could not be read (a PDF gone from the bucket, a throttled read) says so
 * in its place, logged; the rest of the page, and its download link, still show.
 */
export async function pagesOrNotice(req: SiteRequest, read: () => Promise<Html>): Promise<Html> {
  try {
    return await read();
  } catch (err) {
    if (isPlatenError(err) && err.status < 500) throw err;
    logger.warn("page images section failed", { error: err instanceof Error ? err : String(err) });
    return html`<p class="notice" id="pages-failed">${t(req.lang).pagesFailed}</p>`;
  }
}

/** Draws a page with the renderer, which is loaded on the first image drawn, never by other pages. */
async function drawPage(pdf: Buffer, pageNumber: number): Promise<Buffer> {
  const { getRenderer } = await import("#shared/render/renderer.ts");
  return getRenderer().pageImage(pdf, pageNumber);
}

/**
 * GET of one page image: the cached PNG, else drawn and cached (shared/page-images). No such
 * page (or an encrypted PDF) is `missing()`; a renderer that is busy or failed is the API's
 * error body (503 `RENDER_QUEUE_FULL`, Retry-After), a page too slow to draw 422 `RENDER_TIMEOUT`.
 */
export async function pageImageAnswer(
  req: SiteRequest,
  source: PageSource,
  pageNumber: number | undefined,
  bucket: BucketId,
  missing: () => SiteResult,
): Promise<SiteResult> {
  if (pageNumber === undefined) return missing();
  try {
    const image = await pageImageOf(source, pageNumber, { store: s3PageStore(bucket), drawPage });
    return image ? pngAnswer(image.png, IMAGE_CACHE) : missing();
  } catch (err) {
    if (!(err instanceof RenderError) && !isPlatenError(err)) throw err;
    const refusal = err instanceof RenderError ? drawingRefusal(err) : err;
    if (refusal.status >= 500) logger.warn("page image not drawn", { error: err });
    const answer = jsonError(req, refusal);
    if (refusal.retryAfter === undefined) return answer;
    return { ...answer, headers: { ...answer.headers, "Retry-After": String(refusal.retryAfter) } };
  }
}

const drawingRefusal = (err: RenderError): PlatenError =>
  err.code === "RENDER_TIMEOUT"
    ? new PlatenError("RENDER_TIMEOUT", { cause: err })
    : new PlatenError("RENDER_QUEUE_FULL", { cause: err, retryAfter: 2 });
