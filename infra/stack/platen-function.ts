import { dirname, join } from "node:path";
import { Duration, Size, Stack } from "aws-cdk-lib";
import { Architecture, Runtime } from "aws-cdk-lib/aws-lambda";
import {
  type BundlingOptions,
  type ICommandHooks,
  NodejsFunction,
  OutputFormat,
  SourceMapMode,
} from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { FunctionDefinition } from "#shared/definitions/index.ts";
import type { PlatenData } from "./data.ts";
import { CHROMIUM_PATH, chromiumLayer } from "./chromium-layer.ts";
import { RENDER_FONT_DIR, renderFontLayer } from "./font-layer.ts";
import { executionRole, grantAccess, lookup } from "./function-access.ts";
import type { StageSettings } from "./stage.ts";

/** Chromium needs memory for one browser per core and room in /tmp for the inflated binary. */
export const CHROMIUM_MIN_MEMORY_MB = 2048;
export const CHROMIUM_EPHEMERAL_STORAGE_MIB = 2048;

/**
 * ESM bundles still contain CommonJS dependencies that call `require` for Node built-ins;
 * esbuild's ESM output has no `require`, so the banner provides one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __platenCreateRequire } from 'node:module'; const require = __platenCreateRequire(import.meta.url);";

export interface PlatenFunctionProps {
  definition: FunctionDefinition;
  settings: StageSettings;
  data: PlatenData;
  /** Repository root: entry paths of the definitions are relative to it. */
  projectRoot: string;
  /** PLATEN_ENV and the public URLs, shared by every function. */
  environment: Record<string, string>;
}

/**
 * One Lambda of the service. Fixes in one place what every function shares: Node 22, x86-64,
 * ESM bundle with source maps, its own log group, the resource names it needs and
 * least-privilege grants from the definition's access lists. Chromium functions also get
 * memory, /tmp space and two layers: the unpacked Chromium and the fonts.
 */
export class PlatenFunction extends Construct {
  readonly definition: FunctionDefinition;
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: PlatenFunctionProps) {
    super(scope, id);
    const { definition: def, settings } = props;
    this.definition = def;
    if (def.chromium && def.memoryMb < CHROMIUM_MIN_MEMORY_MB) {
      throw new Error(`Function ${def.id}: chromium functions need memoryMb ≥ ${CHROMIUM_MIN_MEMORY_MB}.`);
    }
    const logGroup = new LogGroup(this, "Logs", {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    const role = executionRole(this, logGroup);
    this.fn = new NodejsFunction(this, "Function", {
      functionName: `${settings.prefix}-${def.id}`,
      description: `Platen ${def.id} (${def.entry})`,
      entry: join(props.projectRoot, def.entry),
      handler: "handler",
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, "package-lock.json"),
      // Node 22, the runtime the service targets and tests on: see infra/README.md "Runtime".
      runtime: Runtime.NODEJS_22_X,
      // @sparticuz/chromium's npm package ships only the x86-64 Chromium build (arm64 is a
      // separate download), and the local stack runs that same binary on x86-64 machines.
      // One architecture for every function keeps bundles and tests alike.
      architecture: Architecture.X86_64,
      memorySize: def.memoryMb,
      timeout: Duration.seconds(def.timeoutSeconds),
      ephemeralStorageSize: def.chromium ? Size.mebibytes(CHROMIUM_EPHEMERAL_STORAGE_MIB) : undefined,
      // Fonts and the unpacked browser come from layers: the renderer's TTFs only, and a
      // Chromium that needs no inflating when a container starts.
      layers: def.chromium ? [renderFontLayer(Stack.of(this)), chromiumLayer(Stack.of(this))] : undefined,
      logGroup,
      role,
      environment: {
        ...props.environment,
        ...resourceEnvironment(def, props.data),
        // The first browser starts in the init phase (shared/render/renderer.ts launchAtInit).
        ...(def.chromium ? { RENDER_FONT_DIR, CHROMIUM_PATH, RENDER_LAUNCH_AT_INIT: "1" } : {}),
        // Powertools: the `service` of every log line and metric (app-metrics.ts reads it per stage).
        POWERTOOLS_SERVICE_NAME: settings.prefix,
        // Stack traces through the source maps. Not in the Chromium functions: Node parses the
        // map of every file it loads, ~45 ms of CPU on their cold path (test/bench/README.md
        // "Cold starts"); their traces keep the function names (keepNames), and the maps still
        // ship, so setting this variable on the function brings the source lines back.
        ...(def.chromium ? {} : { NODE_OPTIONS: "--enable-source-maps" }),
      },
      bundling: bundlingOptions({ chromium: def.chromium === true, entry: def.entry }),
    });
    grantAccess(role, def, props.data);
  }

  /** Adds an env var after creation (queue consumers learn their own queue URL). */
  addEnvironment(name: string, value: string): void {
    this.fn.addEnvironment(name, value);
  }
}

/**
 * Build-time constants of every deployed bundle: the local stack's test hooks (fault
 * injection, the movable clock) fold to dead code there and esbuild leaves them out
 * (shared/test-hooks.d.ts; test/infra/test-hooks-bundles.test.ts looks at the output).
 */
const DEPLOYED_DEFINE = { "globalThis.__PLATEN_TEST_HOOKS__": "false" };

/**
 * Loaded at run time from the function's own `node_modules`, never bundled; only the files
 * used are copied. (The barcode encoder is bundled: only the symbologies the `barcode` filter
 * offers, in a chunk of their own that templates using the filter load, see {@link splitBundle}
 * and shared/render/barcode-encoders.ts.)
 */
export const RUN_TIME_MODULES = {
  // pdf.js runs inside Chromium (shared/render/page-images.ts): its two files are read as text, never imported.
  "pdfjs-dist": ["package.json", "LICENSE", "build/pdf.min.mjs", "build/pdf.worker.min.mjs"],
} as const;

/**
 * Stand-ins for modules the deployed functions import but never run (esbuild aliases,
 * relative to the project root, where local bundling runs).
 */
export const BUNDLE_STUBS = {
  "proxy-agent": "./infra/stack/bundle-stubs/proxy-agent.ts",
} as const;

/**
 * ESM bundle with source maps, built by the local esbuild. No node modules but the run-time
 * ones above (Chromium functions only): even @sparticuz/chromium is bundled (only its flags are
 * used; the browser comes unpacked from the Chromium layer, so its 66 MB of brotli'd archives
 * stay out of the function). Chromium functions' bundles are split ({@link splitBundle}).
 * @param options.entry the handler's file, relative to the project root (needed to split).
 */
export function bundlingOptions(options: { chromium?: boolean; entry?: string } = {}): BundlingOptions {
  const esbuild = {
    format: OutputFormat.ESM,
    target: "node22",
    mainFields: ["module", "main"],
    banner: ESM_REQUIRE_BANNER,
    minify: true,
    keepNames: true,
    sourceMap: true,
    sourceMapMode: SourceMapMode.DEFAULT,
    sourcesContent: false,
    define: DEPLOYED_DEFINE,
    externalModules: Object.keys(RUN_TIME_MODULES),
    esbuildArgs: { "--alias": Object.entries(BUNDLE_STUBS).map(([name, stub]) => `${name}=${stub}`) },
  } satisfies BundlingOptions;
  const split = options.chromium && options.entry ? options.entry : undefined;
  return {
    ...esbuild,
    ...(options.chromium && {
      commandHooks: afterBundling([...copyRunTimeModules(), ...(split ? [splitBundle(split, esbuild)] : [])]),
    }),
    // Bundle the SDK: the versions of the lock file, not whatever the runtime ships.
    bundleAwsSDK: true,
    // `cdk synth` must work without Docker: esbuild from node_modules.
    forceDockerBundling: false,
  };
}

/** Shell commands run after the bundle is built, in the project root (`inputDir`) with the asset folder (`outputDir`). */
type AfterBundling = (inputDir: string, outputDir: string) => string;

function afterBundling(steps: AfterBundling[]): ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) => steps.map((step) => step(inputDir, outputDir)),
  };
}

/** Copies each run-time module's files from the project's node_modules into the bundle's (local bundling runs these in a shell). */
function copyRunTimeModules(): AfterBundling[] {
  return Object.entries(RUN_TIME_MODULES).flatMap(([name, files]) =>
    files.map((file) => (inputDir: string, outputDir: string) => {
      const to = join(outputDir, "node_modules", name, file);
      return `mkdir -p "${dirname(to)}" && cp "${join(inputDir, "node_modules", name, file)}" "${to}"`;
    }),
  );
}

const shellQuote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * Rebuilds the bundle with esbuild's code splitting: what the handler only loads with
 * `import()` (pdf-lib and its fonts for protection and rewriting, the barcode encoders, puppeteer's WebDriver BiDi,
 * the SDK's other credential providers, …, ~1.6 MB of a Chromium function's 3.5) goes into
 * `chunks/`, compiled when first imported. Node compiles a module's whole file when it loads
 * it, so in `index.mjs` those cost every cold start ~85 ms of Node CPU (test/bench/README.md
 * "Cold starts"). CDK's esbuild step can only write one `--outfile`; this runs the same esbuild
 * with the same flags again into the asset folder, replacing that file.
 */
function splitBundle(entry: string, options: BundlingOptions): AfterBundling {
  const flags = [
    `--format=${options.format}`,
    `--target=${options.target}`,
    "--platform=node",
    `--main-fields=${options.mainFields!.join(",")}`,
    `--banner:js=${options.banner}`,
    ...(options.minify ? ["--minify"] : []),
    ...(options.keepNames ? ["--keep-names"] : []),
    ...(options.sourceMap ? ["--sourcemap"] : []),
    `--sources-content=${options.sourcesContent}`,
    ...Object.entries(options.define ?? {}).map(([key, value]) => `--define:${key}=${value}`),
    ...(options.externalModules ?? []).map((name) => `--external:${name}`),
    ...Object.entries(BUNDLE_STUBS).map(([name, stub]) => `--alias:${name}=${stub}`),
    "--splitting",
    "--entry-names=index",
    "--chunk-names=chunks/[name]-[hash]",
    "--out-extension:.js=.mjs",
    "--log-level=warning",
  ];
  return (inputDir, outputDir) =>
    [join(inputDir, "node_modules/.bin/esbuild"), "--bundle", join(inputDir, entry), ...flags, `--outdir=${outputDir}`]
      .map(shellQuote)
      .join(" ");
}

/**
 * Resource names as env vars. shared/aws/config.ts requires every table and bucket name at
 * load time, so all of them are set (a name grants nothing; function-access.ts grants); queue URLs
 * only for the queues the function sends to (consumers get theirs when wired).
 */
function resourceEnvironment(def: FunctionDefinition, data: PlatenData): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { definition, table } of Object.values(data.tables)) env[definition.envVar] = table.tableName;
  for (const { definition, bucket } of Object.values(data.buckets)) env[definition.envVar] = bucket.bucketName;
  for (const id of def.access.queuesSend ?? []) {
    const { definition, queue } = lookup(data.queues, id, def, "queue");
    env[definition.envVar] = queue.queueUrl;
  }
  for (const id of def.access.deadLettersSend ?? []) {
    const { definition, dlq } = lookup(data.queues, id, def, "queue");
    env[definition.dlq.envVar] = dlq.queueUrl;
  }
  if (def.access.identityKeys && data.identityKeys) env.PLATEN_IDENTITY_SECRET_ID = data.identityKeys.secretArn;
  if (def.access.signingKeys && data.signingKeys) env.PLATEN_SIGNING_KMS_KEY_ID = data.signingKeys.keyArn;
  return env;
}
