import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * Bundles the studio's browser scripts (functions/site/scripts) into one JSON module the site
 * function imports, so the deployed bundle and the local stack serve the same bytes without a
 * file system lookup. Each name carries a hash of its content: a new build is a new address, so
 * browsers may cache a script forever. Run by `npm install`/`npm ci` (prepare), `npm start` and
 * `npm run synth`; the output is not committed.
 */
const ENTRIES = { editor: "functions/site/scripts/editor.ts" } as const;
const OUT = fileURLToPath(new URL("./scripts.generated.json", import.meta.url));

export async function buildStudioScripts(): Promise<Record<string, { file: string; js: string }>> {
  const out: Record<string, { file: string; js: string }> = {};
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: "iife",
      target: "es2022",
      write: false,
      legalComments: "none",
    });
    const js = result.outputFiles[0]!.text;
    const hash = createHash("sha256").update(js).digest("hex").slice(0, 16);
    out[name] = { file: `${name}.${hash}.js`, js };
  }
  writeFileSync(OUT, `${JSON.stringify(out)}\n`);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildStudioScripts();
  for (const { file, js } of Object.values(built)) console.log(`studio script ${file}: ${js.length} bytes`);
}
