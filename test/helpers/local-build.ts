import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import type { ProvidedContext } from "vitest";
import { functions } from "#shared/definitions/index.ts";
import { prebuiltPath } from "#infra/local/prebuilt.ts";
import { ESM_REQUIRE_BANNER } from "#infra/stack/function-bundle.ts";
import { isAlive } from "./processes.ts";

const repoRoot = resolve(import.meta.dirname, "../..");

/** What a test run starts as a process or loads in one: the stack, its emulator thread, every handler, the admin CLI. */
export const PREBUILT_ENTRIES = [
  "infra/local/start.ts",
  "infra/local/emulator-thread.ts",
  "infra/admin/cli.ts",
  ...new Set(Object.values(functions).map((f: { entry: string }) => f.entry)),
];

/**
 * Each module keeps the location of its source: `import.meta.url`, `dirname` and `filename`
 * become its `.ts` file's, so files found beside a module (fonts, samples, the studio's scripts)
 * are found as under tsx. (`import.meta.resolve` stays: the build sits inside the repository,
 * so packages resolve from the same node_modules.)
 */
const sourceLocations: Plugin = {
  name: "source-locations",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${"/"}node_modules/`)) return undefined;
      const text = readFileSync(args.path, "utf8")
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path));
      return { contents: text, loader: "ts" };
    });
  },
};

/**
 * Compiles the local stack once for a test run into `outdir` (inside the repository, for
 * package resolution), mirroring the source tree: `PLATEN_LOCAL_PREBUILT=<outdir>` makes a
 * stack load it instead of TypeScript through tsx (infra/local/prebuilt.ts). Packages stay
 * external, loaded from node_modules as under tsx; nothing is minified; test hooks stay in.
 * Source maps without the sources' text: a stack trace still names the `.ts` file and line, and
 * Node reads a map of 3 MB instead of 5 at every start (with the text, they cost a start ~0.5 s of CPU).
 */
export async function buildLocalStack(outdir: string): Promise<void> {
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: repoRoot,
    entryPoints: PREBUILT_ENTRIES,
    outdir,
    outbase: repoRoot,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    banner: { js: ESM_REQUIRE_BANNER },
    sourcemap: true,
    sourcesContent: false,
    chunkNames: "chunks/[name]-[hash]",
    plugins: [sourceLocations],
    logLevel: "warning",
  });
}

/** The node arguments that run a prebuilt entry (named by its source, relative to the repository root). */
export function prebuiltArgs(outdir: string, entry: string): string[] {
  return ["--enable-source-maps", prebuiltPath(outdir, entry)];
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's prebuilt local stack (stack-broker.ts builds it with {@link buildLocalStack}). */
    localPrebuilt: string;
  }
}

const CACHE = join(repoRoot, "node_modules/.cache");
let ownBuild: string | undefined;

/**
 * The suite's globalSetup builds the local stack once per run into node_modules/.cache
 * (a run's folder is named by its pid; a killed run's is removed by the next).
 */
export async function buildForRun(): Promise<string> {
  for (const entry of existsSync(CACHE) ? readdirSync(CACHE) : []) {
    const pid = /^platen-prebuilt-(\d+)$/.exec(entry)?.[1];
    if (pid && !isAlive(Number(pid))) rmSync(join(CACHE, entry), { recursive: true, force: true });
  }
  const outdir = join(CACHE, `platen-prebuilt-${process.pid}`);
  rmSync(outdir, { recursive: true, force: true });
  await buildLocalStack(outdir);
  ownBuild = outdir;
  return outdir;
}

export function removeRunBuild(): void {
  if (ownBuild) rmSync(ownBuild, { recursive: true, force: true });
}

/** The run's prebuilt stack, if this process is part of a test run (the globalSetup, or a test worker). */
export async function runPrebuilt(): Promise<string | undefined> {
  return ownBuild ?? ((await providedByRun("localPrebuilt")) || undefined);
}

/**
 * What the suite's globalSetup provided, in a test worker; undefined elsewhere. Only test workers can
 * ask (vitest sets VITEST_POOL_ID there); vitest is imported lazily so the benches, plain scripts, do
 * not load it: they run the sources as `npm start` does, and seed their own data dirs.
 */
export async function providedByRun<K extends keyof ProvidedContext>(key: K): Promise<ProvidedContext[K] | undefined> {
  if (!process.env.VITEST_POOL_ID) return undefined;
  const { inject } = await import("vitest");
  return inject(key);
}

/** `node` arguments of the admin CLI: prebuilt in a test run, else as `npm run admin` runs it. */
export async function adminCliArgs(...args: string[]): Promise<string[]> {
  const prebuilt = await runPrebuilt();
  return [
    ...(prebuilt ? prebuiltArgs(prebuilt, "infra/admin/cli.ts") : ["--import", "tsx", "infra/admin/cli.ts"]),
    ...args,
  ];
}
