import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
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
 * A function's code: its handler bundled by the local esbuild at synth (no Docker, no package
 * manager in between), hashed by its output like NodejsFunction's own bundling.
 * @param options.entry the handler's file, relative to the project root.
 * @param options.chromium split the bundle and ship the {@link RUN_TIME_MODULES}.
 */
export function functionCode(options: { projectRoot: string; entry: string; chromium: boolean }): Code {
  return Code.fromAsset(options.projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type, never pulled: local bundling always succeeds.
      image: DockerImage.fromRegistry("public.ecr.aws/docker/library/alpine:3"),
      local: new FunctionBundling(options.projectRoot, options.entry, options.chromium),
    },
  });
}

/**
 * CDK's asset cache keys on the JSON of the bundling options: the fields name the build, so
 * two functions never share a staged bundle unless they bundle the same entry the same way.
 */
class FunctionBundling implements ILocalBundling {
  constructor(
    readonly projectRoot: string,
    readonly entry: string,
    readonly chromium: boolean,
  ) {}

  tryBundle(outputDir: string): boolean {
    const options: BuildOptions = {
      ...bundlingOptions(),
      entryPoints: [join(this.projectRoot, this.entry)],
      absWorkingDir: this.projectRoot,
    };
    buildSync(
      this.chromium
        ? { ...options, ...SPLIT_OPTIONS, outdir: outputDir }
        : { ...options, outfile: join(outputDir, "index.mjs") },
    );
    if (this.chromium) copyRunTimeModules(this.projectRoot, outputDir);
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
