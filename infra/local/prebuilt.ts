import { join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * `PLATEN_LOCAL_PREBUILT`: a folder where esbuild compiled the local stack ahead of time
 * (test/helpers/local-build.ts; the test suite starts its stacks from it, which halves a
 * start's CPU: no TypeScript loader in the process). It mirrors the source tree, one `.js`
 * per entry. Unset (as `npm start` runs), sources load through tsx.
 */
export function prebuiltEntryUrl(sourcePath: string): string | undefined {
  const dir = process.env.PLATEN_LOCAL_PREBUILT;
  if (!dir) return undefined;
  return pathToFileURL(join(dir, sourcePath.replace(/\.ts$/, ".js"))).href;
}
