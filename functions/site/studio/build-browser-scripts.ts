import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { siteStaticAssets } from "#shared/definitions/static-assets.ts";

/**
 * Bundles the studio's browser scripts (studio/browser/) into static files, each named by a hash of
 * its content (`editor.<hash>.js`: a new build is a new address, so browsers may cache a script
 * forever), and writes the manifest the site reads to name them (`generated/scripts.json`). The
 * files are served by the local gateway and, in AWS, by a bucket behind CloudFront: the site
 * function carries only the manifest, not the ~600 KB of script. Run by `npm install`/`npm ci`
 * (prepare), `npm start` and `npm run synth`; the output is not committed.
 */
const ENTRIES = { editor: "functions/site/studio/browser/editor.ts" } as const;
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MANIFEST = fileURLToPath(new URL("./generated/scripts.json", import.meta.url));

/** A bundled script's name to its file under `siteStaticAssets.dir`. */
export type ScriptManifest = Record<keyof typeof ENTRIES, string>;

export async function buildBrowserScripts(): Promise<{ manifest: ScriptManifest; bytes: Record<string, number> }> {
  const dir = join(ROOT, siteStaticAssets.dir);
  // Only this build's files: the deploy keeps older ones in the bucket for pages still open.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const manifest = {} as ScriptManifest;
  const bytes: Record<string, number> = {};
  for (const [name, entry] of Object.entries(ENTRIES) as [keyof typeof ENTRIES, string][]) {
    const result = await build({
      entryPoints: [join(ROOT, entry)],
      bundle: true,
      minify: true,
      format: "iife",
      target: "es2022",
      write: false,
      legalComments: "none",
    });
    const js = result.outputFiles[0]!.contents;
    const file = `${name}.${createHash("sha256").update(js).digest("hex").slice(0, 16)}.js`;
    writeFileSync(join(dir, file), js);
    manifest[name] = file;
    bytes[file] = js.length;
  }
  writeFileSync(MANIFEST, `${JSON.stringify(manifest)}\n`);
  return { manifest, bytes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { bytes } = await buildBrowserScripts();
  for (const [file, size] of Object.entries(bytes)) console.log(`studio script ${file}: ${size} bytes`);
}
