import { mkdtempSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { type PlatenDefinitions, sharedDefinitions } from "#infra/stack/definitions.ts";
import { PlatenStack } from "#infra/stack/platen-stack.ts";

/** One function as the stack deploys it: its bundle folder, layers and literal environment. */
export interface DeployedFunction {
  id: string;
  /** The asset folder Lambda unpacks to /var/task (index.mjs, maybe node_modules). */
  codeDir: string;
  /** What /opt holds: the function's layers merged, as Lambda mounts them. */
  optDir: string;
  memoryMb: number;
  /** The function's time-out: what its invocation context counts down from. */
  timeoutSeconds: number;
  /** The template's literal variables (resource names are Refs; the bench fills those locally). */
  environment: Record<string, string>;
}

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON has no static type.
type Cfn = any;

/**
 * Synthesizes the real stack, restricted to `ids`, with bundling on: the esbuild bundles,
 * node modules and layers are exactly the assets `cdk deploy` would upload.
 */
export function synthDeployedFunctions(ids: readonly string[], outdir: string): Record<string, DeployedFunction> {
  const definitions: PlatenDefinitions = {
    ...sharedDefinitions,
    functions: Object.fromEntries(ids.map((id) => [id, sharedDefinitions.functions[id]!])),
    routes: sharedDefinitions.routes.filter((r) => ids.includes(r.function)),
  };
  // No CloudFormation validation: it checks the template, not the assets, and costs seconds of CPU.
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  const stack = new PlatenStack(app, "Platen-bench", { definitions });
  const resources = (
    Template.fromStack(stack).toJSON() as { Resources: Record<string, { Type: string; Properties: Cfn }> }
  ).Resources;
  const assetDir = (code: Cfn) => join(app.outdir, `asset.${String(code.S3Key).replace(/\.zip$/, "")}`);
  const result: Record<string, DeployedFunction> = {};
  for (const [id, fn] of Object.entries(stack.functions)) {
    const props = resources[stack.getLogicalId(fn.fn.node.defaultChild as never)]!.Properties;
    const layers = ((props.Layers ?? []) as Cfn[]).map((ref) => assetDir(resources[ref.Ref]!.Properties.Content));
    const literal = Object.entries((props.Environment?.Variables ?? {}) as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    );
    result[id] = {
      id,
      codeDir: assetDir(props.Code),
      optDir: mergeLayers(layers),
      memoryMb: props.MemorySize,
      timeoutSeconds: props.Timeout,
      environment: Object.fromEntries(literal),
    };
  }
  return result;
}

/** Lambda extracts every layer into /opt; a folder of links to their top-level entries is the same view. */
function mergeLayers(layerDirs: string[]): string {
  const opt = mkdtempSync(join(tmpdir(), "platen-opt-"));
  for (const dir of layerDirs) {
    for (const entry of readdirSync(dir)) symlinkSync(join(dir, entry), join(opt, entry));
  }
  return opt;
}

/** The function's literal environment with `/opt/…` paths pointing into the merged layer folder. */
export function remapOpt(fn: DeployedFunction): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fn.environment).map(([k, v]) => [k, v.replace(/^\/opt(?=\/|$)/, fn.optDir)]),
  );
}

/** Unzipped MB of the function's code plus its layers: Lambda allows 250 in all. */
export function unzippedSizeMb(fn: DeployedFunction): number {
  return (folderBytes(fn.codeDir) + folderBytes(fn.optDir)) / 2 ** 20;
}

function folderBytes(path: string): number {
  const stat = statSync(path); // follows the layer links
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((total, entry) => total + folderBytes(join(path, entry)), 0);
}
