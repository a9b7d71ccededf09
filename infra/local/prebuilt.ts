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
  return dir ? pathToFileURL(prebuiltPath(dir, sourcePath)).href : undefined;
}

/** Where a source file's compiled entry is in the prebuilt folder `dir` (`a/b.ts` → `dir/a/b.js`). */
export const prebuiltPath = (dir: string, sourcePath: string): string => join(dir, sourcePath.replace(/\.ts$/, ".js"));
