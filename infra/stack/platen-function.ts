import { Duration, Size, Stack } from "aws-cdk-lib";
import { Architecture, Runtime } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { FunctionDefinition } from "#shared/definitions/index.ts";
import type { PlatenData } from "./data.ts";
import { CHROMIUM_PATH, chromiumLayer } from "./chromium-layer.ts";
import { RENDER_FONT_DIR, renderFontLayer } from "./font-layer.ts";
import type { FunctionBundles } from "./function-bundle.ts";
import { executionRole, grantAccess, lookup } from "./function-access.ts";
import type { StageSettings } from "./stage.ts";

/** Chromium needs memory for one browser per core and room in /tmp for the inflated binary. */
export const CHROMIUM_MIN_MEMORY_MB = 2048;
export const CHROMIUM_EPHEMERAL_STORAGE_MIB = 2048;

export interface PlatenFunctionProps {
  definition: FunctionDefinition;
  settings: StageSettings;
  data: PlatenData;
  /** Builds the function's bundle (entry paths of the definitions are relative to its project root). */
  bundles: FunctionBundles;
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
      // Bundled by function-bundle.ts, not by NodejsFunction's bundling, which runs esbuild
      // through npx and cannot split a bundle.
      code: props.bundles.code(def.entry, def.chromium === true),
      handler: "index.handler",
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
    });
    grantAccess(role, def, props.data);
  }

  /** Adds an env var after creation (queue consumers learn their own queue URL). */
  addEnvironment(name: string, value: string): void {
    this.fn.addEnvironment(name, value);
  }
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
