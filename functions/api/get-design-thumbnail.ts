import { getThumbnail } from "#shared/designs/design-store.ts";
import { findDesignVersion, parseVersionQuery } from "#shared/designs/find-design-version.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { apiHandler } from "#shared/http/api-handler.ts";

/** GET /v1/file/designs/{designId}/thumbnail?version= : the `thumbnail` URL of the design list. */
export const handler = apiHandler(async function handleGetDesignThumbnail(req) {
  const version = parseVersionQuery(req.query("version"));
  const found = await findDesignVersion(req.principal.workspace.id, req.path("designId"), version);
  const png = found.thumbnailKey ? await getThumbnail(found.thumbnailKey) : undefined;
  if (!png) throw new PlatenError("FILE_NOT_FOUND");
  return { status: 200, contentType: "image/png", body: png, headers: { "Cache-Control": "private, max-age=3600" } };
});
