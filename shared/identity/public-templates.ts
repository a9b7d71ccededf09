import type { ServerResponse } from "node:http";
import { config } from "#shared/aws/config.ts";
import { getThumbnail } from "#shared/designs/design-store.ts";
import { getTemplate, publicTemplate } from "#shared/designs/gallery.ts";
import { searchTemplates } from "#shared/designs/gallery-pages.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { PlatenError, isPlatenError } from "#shared/errors/platen-error.ts";
import type { Language } from "#shared/errors/language.ts";
import { designDetailText } from "#shared/designs/design-detail-text.ts";
import { ANY_ORIGIN, sendJson } from "./http-io.ts";

/** Where a template's thumbnail is public: below the gallery on `{auth_url}`. */
export const templateThumbnailUrl = (id: string) =>
  `${config().authUrl.replace(/\/$/, "")}/public/templates/${encodeURIComponent(id)}/thumbnail`;

/**
 * shared/identity/README.md#auth_url: the public template gallery, no authentication.
 * `GET /public/templates?q=&tag=&cursor=` → `{templates: [{id, label, description, tags,
 * thumbnail, pageSize, publisher, updatedAt}], next?}` (30 a page at most, read one page at a
 * time; `next` is the next page's `cursor`); `GET /public/templates/{id}/thumbnail` → the PNG.
 * Both are cached briefly.
 */
export async function servePublicGallery(
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  lang: Language,
): Promise<void> {
  try {
    if (path === "/public/templates") {
      refusePageNumber(query.get("page"));
      const found = await searchTemplates({
        q: query.get("q") ?? undefined,
        tag: query.get("tag") ?? undefined,
        cursor: query.get("cursor") ?? undefined,
      });
      const templates = found.templates.map((t) => publicTemplate(t, templateThumbnailUrl(t.id)));
      const next = found.next;
      return sendJson(
        res,
        200,
        { templates, ...(next && { next }) },
        { ...ANY_ORIGIN, "Cache-Control": "public, max-age=30" },
      );
    }
    const id = /^\/public\/templates\/([^/]+)\/thumbnail$/.exec(path)?.[1];
    if (id) {
      const template = await getTemplate(decodedId(id));
      const png = template.thumbnailKey ? await getThumbnail(template.thumbnailKey) : undefined;
      if (!png) throw new PlatenError("TEMPLATE_NOT_FOUND");
      res.writeHead(200, {
        ...ANY_ORIGIN,
        "Content-Type": "image/png",
        "Content-Length": String(png.length),
        "Cache-Control": "public, max-age=3600",
      });
      res.end(png);
      return;
    }
    throw new PlatenError("TEMPLATE_NOT_FOUND");
  } catch (err) {
    if (!isPlatenError(err)) throw err;
    sendJson(res, err.status, buildErrorBody(err, lang, config().siteUrl), ANY_ORIGIN);
  }
}

/** Pages are read by cursor, never counted through: `page=1` is the first page, any other is 400. */
function refusePageNumber(raw: string | null): void {
  if (raw === null || raw === "1") return;
  throw new PlatenError("VALIDATION_FAILED", {
    details: [
      {
        field: "page",
        text: designDetailText.galleryByCursor,
      },
    ],
  });
}

/** A malformed percent-escape names no template (404), never a 500. */
function decodedId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new PlatenError("TEMPLATE_NOT_FOUND");
  }
}
