import { PlatenError } from "#shared/errors/platen-error.ts";
import type { PageHandler } from "../site-types.ts";
import built from "./scripts.generated.json" with { type: "json" };

/** The studio's bundled scripts (build-scripts.ts), by name. */
const scripts: Record<string, { file: string; js: string }> = built;

export type StudioScript = "editor";

/** The address of a script: its content hash is in the name, so it never changes under a cached copy. */
export const scriptPath = (name: StudioScript) => `/assets/js/${scripts[name]!.file}`;

/**
 * GET `/assets/js/{file}`: a bundled script, cached a year (a new build is a new name). Any other name is
 * the site's 404 page, as for every unknown address (site-edge.ts shows a not-found error so).
 */
export const scriptAsset: PageHandler = async (req) => {
  const found = Object.values(scripts).find((s) => s.file === req.params.file);
  if (!found) throw new PlatenError("NOT_FOUND");
  return {
    status: 200,
    text: found.js,
    contentType: "text/javascript; charset=utf-8",
    headers: { "Cache-Control": "public, max-age=31536000, immutable" },
  };
};
