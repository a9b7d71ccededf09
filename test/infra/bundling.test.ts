import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { sharedDefinitions } from "../../infra/stack/definitions.ts";
import { PlatenStack } from "../../infra/stack/platen-stack.ts";
import { SYNTH_TIMEOUT_MS, type Cfn } from "./synth.ts";

/**
 * One real esbuild run (the health check alone, so it stays fast): proves the bundle is
 * ESM with the createRequire banner and a source map, without Docker.
 */
describe("bundling", () => {
  it(
    "emits index.mjs (ESM, createRequire banner) and its source map with local esbuild",
    () => {
      const definitions = {
        ...sharedDefinitions,
        functions: { "health-check": sharedDefinitions.functions["health-check"]! },
        routes: sharedDefinitions.routes.filter((r) => r.function === "health-check"),
      };
      const app = new App();
      try {
        const stack = new PlatenStack(app, "Platen-dev", { definitions });
        const json = Template.fromStack(stack).toJSON() as {
          Resources: Record<string, { Type: string; Properties: Cfn }>;
        };
        const fn = Object.values(json.Resources).find((r) => r.Type === "AWS::Lambda::Function")!;
        const assetDir = join(app.outdir, `asset.${String(fn.Properties.Code.S3Key).replace(/\.zip$/, "")}`);
        const code = readFileSync(join(assetDir, "index.mjs"), "utf8");
        expect(code.startsWith("import { createRequire as __platenCreateRequire } from 'node:module';")).toBe(true);
        expect(code).toMatch(/export\s*\{[^}]*handler/);
        expect(code).toContain("//# sourceMappingURL=index.mjs.map");
        expect(existsSync(join(assetDir, "index.mjs.map"))).toBe(true);
      } finally {
        rmSync(app.outdir, { recursive: true, force: true }); // a failed assertion must not leave the cdk.out* behind
      }
    },
    SYNTH_TIMEOUT_MS,
  );
});
