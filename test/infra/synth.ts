import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, type CfnElement } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import type { FunctionDefinition } from "#shared/definitions/index.ts";
import { type PlatenDefinitions, sharedDefinitions } from "../../infra/stack/definitions.ts";
import { PlatenStack, type PlatenStackProps } from "../../infra/stack/platen-stack.ts";

/** Synthesis takes seconds (no esbuild, but the whole construct tree); tests share stacks. */
export const SYNTH_TIMEOUT_MS = 120_000;

export interface Synthesized {
  stack: PlatenStack;
  template: Template;
  json: TemplateJson;
}

/**
 * A node of the synthesized CloudFormation JSON. The template is untyped data; tests walk
 * it freely and let assertions catch wrong shapes.
 */
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON has no static type.
export type Cfn = any;

export interface TemplateJson {
  Resources: Record<string, { Type: string; Properties?: Record<string, Cfn>; DependsOn?: unknown }>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

/**
 * Builds the stack without bundling: the context `aws:cdk:bundling-stacks: []` makes
 * NodejsFunction skip esbuild (entry files must still exist).
 */
export function synthStack(props: PlatenStackProps = {}): Synthesized {
  // An explicit outdir, removed once the template is read: CDK's default is a fresh
  // cdk.out* folder in the temp folder per synthesis, never cleaned.
  const outdir = mkdtempSync(join(tmpdir(), "cdk.out-test-"));
  try {
    // No built-in CloudFormation validation (seconds of CPU per stack): nag.test.ts synthesizes the
    // prod stack as `cdk synth` does, with it.
    const app = new App({ outdir, context: { "aws:cdk:bundling-stacks": [] }, builtinCloudFormationValidation: false });
    const stack = new PlatenStack(app, `Platen-${props.stage ?? "dev"}`, props);
    const template = Template.fromStack(stack);
    return { stack, template, json: template.toJSON() as TemplateJson };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The CloudFormation logical id of a construct's default resource. */
export function logicalId(stack: PlatenStack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

/** aws-s3-deployment's upload function (infra/stack/static-assets.ts): a CDK singleton run only during a deploy. */
export const isAssetUploader = (logicalId: string) => logicalId.startsWith("CustomCDKBucketDeployment");

/** Resources of one type, as [logicalId, properties]. */
export function resourcesOfType(json: TemplateJson, type: string): [string, Record<string, Cfn>][] {
  return Object.entries(json.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id, r]) => [id, r.Properties ?? {}]);
}

/** An existing handler file to stand in for handlers that have not landed yet. */
const STAND_IN_ENTRY = "functions/api/health-check.ts";

/**
 * The shared definitions plus stand-ins for the queue consumers (render, dispatch,
 * interrupted) that are not in functions.ts yet, with the time-outs their queues were
 * sized for, so consumer wiring and the visibility rule can be tested today.
 */
export function definitionsWithConsumers(
  overrides: Partial<Record<string, Partial<FunctionDefinition>>> = {},
): PlatenDefinitions {
  const standIn = (
    id: string,
    timeoutSeconds: number,
    extra: Partial<FunctionDefinition> = {},
  ): FunctionDefinition => ({
    id,
    entry: STAND_IN_ENTRY,
    timeoutSeconds,
    memoryMb: 512,
    access: {},
    ...extra,
    ...overrides[id],
  });
  return {
    ...sharedDefinitions,
    functions: {
      ...sharedDefinitions.functions,
      render: standIn("render", 120, {
        memoryMb: 3008,
        chromium: true,
        access: {
          tablesWrite: ["requests", "files"],
          bucketsRead: ["designs"],
          bucketsWrite: ["files"],
          queuesSend: ["webhook"],
        },
      }),
      dispatch: standIn("dispatch", 30, { access: { tablesWrite: ["webhooks"] } }),
      interrupted: standIn("interrupted", 30, { access: { tablesWrite: ["requests", "files"] } }),
    },
  };
}

/**
 * The code of a deployed bundle folder: `index.mjs` and, where the bundle is split (the
 * Chromium functions), every chunk it may load (`chunks/*.mjs`).
 */
export function bundleCode(codeDir: string): string {
  const chunks = join(codeDir, "chunks");
  const files = existsSync(chunks)
    ? readdirSync(chunks)
        .filter((name) => name.endsWith(".mjs"))
        .map((name) => join(chunks, name))
    : [];
  return [join(codeDir, "index.mjs"), ...files].map((file) => readFileSync(file, "utf8")).join("\n");
}
