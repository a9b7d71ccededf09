import type { ServerResponse } from "node:http";
import { config } from "#shared/aws/config.ts";
import { getThumbnail } from "#shared/designs/design-store.ts";
import { getTemplate, publicTemplate, searchTemplates } from "#shared/designs/gallery.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { PlatenError, isPlatenError } from "#shared/errors/platen-error.ts";
import type { Language } from "#shared/errors/language.ts";
import { ANY_ORIGIN, sendJson } from "./http-io.ts";

/** Where a template's thumbnail is public: below the gallery on `{auth_url}`. */
export const templateThumbnailUrl = (id: string) =>
  `${config().authUrl.replace(/\/$/, "")}/public/templates/${encodeURIComponent(id)}/thumbnail`;

/**
 * shared/identity/README.md#auth_url: the public template gallery, no authentication.
 * `GET /public/templates?q=&tag=&page=` → `{templates: [{id, label, description, tags,
 * thumbnail, pageSize, publisher, updatedAt}], next?}` (30 a page, `next` the next page's
 * number); `GET /public/templates/{id}/thumbnail` → the PNG. Both are cached briefly.
 */
export async function servePublicGallery(
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  lang: Language,
): Promise<void> {
  try {
    if (path === "/public/templates") {
      const page = parsePage(query.get("page"));
      const { matches, next } = await searchTemplates({
        q: query.get("q") ?? undefined,
        tag: query.get("tag") ?? undefined,
        page,
      });
      const templates = matches.map((t) => publicTemplate(t, templateThumbnailUrl(t.id)));
      return sendJson(
        res,
        200,
        { templates, ...(next && { next }) },
        { ...ANY_ORIGIN, "Cache-Control": "public, max-age=30" },
      );
    }
    const id = /^\/public\/templates\/([^/]+)\/thumbnail$/.exec(path)?.[1];
    if (id) {
      const template = await getTemplate(decodeURIComponent(id));
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

function parsePage(raw: string | null): number {
  if (raw === null) return 1;
  if (!/^[1-9]\d{0,5}$/.test(raw))
    throw new PlatenError("VALIDATION_FAILED", {
      details: [{ field: "page", message: "must be an integer ≥ 1", messageJa: "1 以上の整数である必要があります" }],
    });
  return Number(raw);
}
