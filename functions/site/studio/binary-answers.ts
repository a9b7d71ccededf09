import { Readable } from "node:stream";
import type { SiteResult } from "../site-types.ts";

/** A PNG answer; `cache` says how long a browser may keep it (an immutable version's image: a day). */
export const pngAnswer = (png: Buffer, cache = "private, max-age=86400"): SiteResult => ({
  status: 200,
  stream: Readable.from([png]),
  contentLength: png.length,
  contentType: "image/png",
  headers: { "Cache-Control": cache },
});

/** A zip to save (a version's bundle): `attachment` with an ASCII file name. */
export const zipAnswer = (zip: Buffer, fileName: string): SiteResult => ({
  status: 200,
  stream: Readable.from([zip]),
  contentLength: zip.length,
  contentType: "application/zip",
  headers: { "Content-Disposition": `attachment; filename="${fileName}"` },
});
