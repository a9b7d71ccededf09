import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { AssetHashType, DockerImage, type ILocalBundling } from "aws-cdk-lib";
import { Code } from "aws-cdk-lib/aws-lambda";
import { type BuildOptions, buildSync } from "esbuild";

/**
 * ESM bundles still contain CommonJS dependencies that call `require` for Node built-ins;
 * esbuild's ESM output has no `require`, so the banner provides one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __platenCreateRequire } from 'node:module'; const require = __platenCreateRequire(import.meta.url);";

/**
 * Build-time constants of every deployed bundle: the local stack's test hooks (fault
 * injection, the movable clock) fold to dead code there and esbuild leaves them out
 * (shared/test-hooks.d.ts; test/infra/test-hooks-bundles.test.ts looks at the output).
 */
const DEPLOYED_DEFINE = { "globalThis.__PLATEN_TEST_HOOKS__": "false" };

/**
 * Loaded at run time from the function's own `node_modules`, never bundled; only the files
 * used are copied. (The barcode encoder is bundled: only the symbologies the `barcode` filter
 * offers, in a chunk of their own that templates using the filter load, see
 * {@link SPLIT_OPTIONS} and shared/render/barcode-encoders.ts.)
 */
export const RUN_TIME_MODULES = {
  // pdf.js runs inside Chromium (shared/render/page-images.ts): its two files are read as text, never imported.
  "pdfjs-dist": ["package.json", "LICENSE", "build/pdf.min.mjs", "build/pdf.worker.min.mjs"],
} as const;

/**
 * Stand-ins for modules the deployed functions import but never run (esbuild aliases,
 * relative to the project root, where bundling runs).
 */
export const BUNDLE_STUBS = {
  "proxy-agent": "./infra/stack/bundle-stubs/proxy-agent.ts",
  "follow-redirects": "./infra/stack/bundle-stubs/follow-redirects.ts",
  "tar-fs": "./infra/stack/bundle-stubs/tar-fs.ts",
} as const;

/**
 * The esbuild options of every deployed bundle: ESM for Node 22 with source maps, minified
 * with names kept, the test hooks compiled out. Everything is bundled (the AWS SDK at the
 * lock-file version, even @sparticuz/chromium, whose flags alone are used: the browser comes
 * from the Chromium layer) but the {@link RUN_TIME_MODULES}.
 */
export function bundlingOptions(): BuildOptions {
  return {
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    mainFields: ["module", "main"],
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    keepNames: true,
    sourcemap: true,
    sourcesContent: false,
    define: DEPLOYED_DEFINE,
    external: Object.keys(RUN_TIME_MODULES),
    alias: { ...BUNDLE_STUBS },
    logLevel: "warning",
  };
}

/**
 * Chromium functions' bundles are split: what the handler only loads with `import()` (pdf-lib
 * and its fonts for protection and rewriting, the barcode encoders, puppeteer's WebDriver BiDi,
 * the SDK's other credential providers, …, ~1.6 MB of a Chromium function's 3.5) goes into
 * `chunks/`, compiled when first imported. Node compiles a module's whole file when it loads
 * it, so in `index.mjs` those cost every cold start ~85 ms of Node CPU (test/bench/README.md
 * "Cold starts").
 */
const SPLIT_OPTIONS: BuildOptions = {
  splitting: true,
  entryNames: "index",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
};

/**
 * The code of a stack's functions: each handler bundled by the local esbuild at synth (no
 * Docker, no package manager in between), hashed by its output like NodejsFunction's own
 * bundling. The unsplit bundles are built by one esbuild run with every such handler as an
 * entry, when the first is needed: most of their modules (the SDK, the shared code) are then
 * parsed once, not once per function, and each entry's output is the same as a build of its
 * own. Split bundles share chunks between entries, so each Chromium function gets its own run.
 */
export class FunctionBundles {
  readonly #projectRoot: string;
  /** The handlers whose bundles are unsplit, each once. */
  readonly #unsplit: string[];
  /** Each unsplit handler's built folder, until its function's asset takes it. */
  #built: Map<string, string> | undefined;

  constructor(projectRoot: string, functions: readonly { entry: string; chromium?: boolean }[]) {
    this.#projectRoot = projectRoot;
    this.#unsplit = [...new Set(functions.filter((fn) => !fn.chromium).map((fn) => fn.entry))];
  }

  /**
   * A function's code. @param entry the handler's file, relative to the project root.
   * @param chromium split the bundle and ship the {@link RUN_TIME_MODULES}.
   */
  code(entry: string, chromium: boolean): Code {
    return Code.fromAsset(this.#projectRoot, {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Required by the type, never pulled: local bundling always succeeds.
        image: DockerImage.fromRegistry("public.ecr.aws/docker/library/alpine:3"),
        local: new FunctionBundling(this.#projectRoot, entry, chromium, (outputDir) => this.#bundle(entry, outputDir)),
      },
    });
  }

  #bundle(entry: string, outputDir: string): void {
    const options: BuildOptions = { ...bundlingOptions(), absWorkingDir: this.#projectRoot };
    const path = join(this.#projectRoot, entry);
    if (!this.#unsplit.includes(entry)) {
      buildSync({ ...options, ...SPLIT_OPTIONS, entryPoints: [path], outdir: outputDir });
      copyRunTimeModules(this.#projectRoot, outputDir);
      return;
    }
    this.#built ??= this.#buildUnsplit(options, dirname(outputDir));
    const built = this.#built.get(entry);
    if (!built || !existsSync(built)) {
      // Taken already (an asset bundled twice): build this one on its own.
      buildSync({ ...options, entryPoints: [path], outfile: join(outputDir, "index.mjs") });
      return;
    }
    for (const file of readdirSync(built)) renameSync(join(built, file), join(outputDir, file));
    rmSync(built, { recursive: true, force: true });
    this.#built.delete(entry);
  }

  /**
   * Every unsplit handler in one run, each into a folder beside CDK's bundling folders: at the
   * same depth, so the source maps' relative paths are the same as a build in place.
   */
  #buildUnsplit(options: BuildOptions, besideDir: string): Map<string, string> {
    const folders = new Map(this.#unsplit.map((entry) => [entry, mkdtempSync(join(besideDir, "bundling-batch-"))]));
    buildSync({
      ...options,
      entryPoints: [...folders].map(([entry, folder]) => ({
        in: join(this.#projectRoot, entry),
        out: join(relative(besideDir, folder), "index"),
      })),
      outdir: besideDir,
      outExtension: { ".js": ".mjs" },
    });
    return folders;
  }
}

/**
 * CDK's asset cache keys on the JSON of the bundling options: the fields name the build, so
 * two functions never share a staged bundle unless they bundle the same entry the same way.
 */
class FunctionBundling implements ILocalBundling {
  readonly #bundle: (outputDir: string) => void;

  constructor(
    readonly projectRoot: string,
    readonly entry: string,
    readonly chromium: boolean,
    bundle: (outputDir: string) => void,
  ) {
    this.#bundle = bundle;
  }

  tryBundle(outputDir: string): boolean {
    this.#bundle(outputDir);
    return true;
  }
}

/** Copies each run-time module's files from the project's node_modules into the bundle's. */
function copyRunTimeModules(projectRoot: string, outputDir: string): void {
  for (const [name, files] of Object.entries(RUN_TIME_MODULES)) {
    for (const file of files) {
      const to = join(outputDir, "node_modules", name, file);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(join(projectRoot, "node_modules", name, file), to);
    }
  }
}
