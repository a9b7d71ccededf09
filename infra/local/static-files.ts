import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { siteStaticAssets } from "#shared/definitions/static-assets.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * What the static-assets distribution serves in AWS (infra/stack/static-assets.ts), on the site's
 * origin: a built browser script under `/assets/js/` with its year-long immutable caching. Returns
 * false for anything else, an unknown name included, which then goes to the site like every path
 * (its 404 page, as the distribution's origin would not have the file either).
 */
export async function serveStaticAsset(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (!url.pathname.startsWith(siteStaticAssets.urlPrefix)) return false;
  const name = url.pathname.slice(siteStaticAssets.urlPrefix.length);
  // Only names a build writes: no other path of the disk is ever read.
  if (!siteStaticAssets.fileName.test(name)) return false;
  let body: Buffer;
  try {
    body = await readFile(join(ROOT, siteStaticAssets.dir, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
  res.writeHead(200, {
    "Content-Type": siteStaticAssets.contentType,
    "Content-Length": body.length,
    "Cache-Control": siteStaticAssets.cacheControl,
    "X-Content-Type-Options": "nosniff",
  });
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}
