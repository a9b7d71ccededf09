import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
    writeAtomically(join(dir, file), js);
    manifest[name] = file;
    bytes[file] = js.length;
  }
  writeAtomically(MANIFEST, `${JSON.stringify(manifest)}\n`);
  // Only this build's files stay (the deploy keeps older ones in the bucket for pages still open). The
  // folder is never emptied first: a running stack (a second `npm start`, a test's) keeps serving the file
  // its manifest names while another build of the same sources writes it again.
  const current = new Set(Object.values(manifest));
  for (const name of readdirSync(dir)) {
    // Another build's file on its way in (`.tmp`) is that build's to rename.
    if (!current.has(name) && !name.endsWith(".tmp")) rmSync(join(dir, name), { force: true });
  }
  return { manifest, bytes };
}

/** Written beside, then renamed over: a reader sees the old file or the new one, never a torn one. */
function writeAtomically(path: string, data: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, data);
  renameSync(temporary, path);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { bytes } = await buildBrowserScripts();
  for (const [file, size] of Object.entries(bytes)) console.log(`studio script ${file}: ${size} bytes`);
}
