import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { rawFromFiles } from "./bundle-codec.ts";
import { strictBundle } from "./bundle-rules.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";

/** A bundle folder that cannot be read at all; the message is one line for the CLI. */
export class BundleError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BundleError";
  }
}

/**
 * Reads a design bundle folder (design.json, template.liquid, style.css, assets/) and checks
 * it with the design API's rules (bundle-rules.ts): an invalid one throws BundleInvalid,
 * whose message names each file, line and column. `ignore` leaves files out by their path in the
 * folder (the dev loop's editor scratch files).
 */
export async function loadBundleFromDir(
  dir: string,
  { ignore = () => false }: { ignore?: (path: string) => boolean } = {},
): Promise<DesignBundle> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new BundleError(`design folder not found: ${dir}`);
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === ".DS_Store") continue;
    const full = join(entry.parentPath, entry.name);
    const path = relative(dir, full).split("\\").join("/");
    if (!ignore(path)) files.set(path, await readFile(full));
  }
  return strictBundle(rawFromFiles(files));
}
