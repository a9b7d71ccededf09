import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Validations } from "aws-cdk-lib";
import { Bucket } from "aws-cdk-lib/aws-s3";
import { AwsSolutionsChecks } from "cdk-nag";
import { afterAll, describe, expect, it } from "vitest";
import { PlatenStack } from "../../infra/stack/platen-stack.ts";
import { definitionsWithConsumers, SYNTH_TIMEOUT_MS } from "./synth.ts";

/**
 * cdk-nag's AwsSolutionsChecks over the whole stack, as `cdk synth` would run them: any
 * finding that infra/stack/nag.ts does not acknowledge fails synthesis, and so this test.
 * The prod stage, with stand-ins for the front ends (`auth`, `app`) so their proxy APIs
 * are checked before their functions land.
 */

const outdirs: string[] = [];

afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

interface Violation {
  ruleName: string;
  violatingConstructs: { constructPath: string }[];
}

/** Synthesizes with the checks; returns the findings (none when synthesis passed). */
function synthWithNag(extend?: (stack: PlatenStack) => void): { violations: string[]; app: App; stack: PlatenStack } {
  const outdir = mkdtempSync(join(tmpdir(), "platen-nag-"));
  outdirs.push(outdir);
  // cdk.json's feature flags, as `cdk synth` applies them.
  const { context } = JSON.parse(readFileSync(join(import.meta.dirname, "../../cdk.json"), "utf8")) as {
    context: Record<string, unknown>;
  };
  const app = new App({ outdir, context: { ...context, "aws:cdk:bundling-stacks": [] } });
  const standIn = { entry: "functions/api/health-check.ts", timeoutSeconds: 29, memoryMb: 512, access: {} };
  const base = definitionsWithConsumers();
  const definitions = {
    ...base,
    functions: { ...base.functions, auth: { ...standIn, id: "auth" }, site: { ...standIn, id: "site" } },
  };
  const stack = new PlatenStack(app, "Platen-prod", { stage: "prod", definitions });
  extend?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return { violations: [], app, stack };
  } catch (err) {
    if (!existsSync(join(outdir, "validation-report.json"))) throw err;
    const report = JSON.parse(readFileSync(join(outdir, "validation-report.json"), "utf8")) as {
      pluginReports: { violations: Violation[] }[];
    };
    const violations = report.pluginReports.flatMap((r) =>
      r.violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`)),
    );
    return { violations, app, stack };
  }
}

describe("cdk-nag AwsSolutionsChecks", () => {
  it(
    "the prod stack has no unacknowledged finding, and every acknowledgement gives a reason",
    () => {
      const { violations, stack } = synthWithNag();
      expect(violations).toEqual([]);
      const acknowledged = stack.node
        .findAll()
        .flatMap((c) =>
          c.node.metadata
            .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
            .map((m) => ({ path: c.node.path, data: m.data })),
        );
      expect(acknowledged.length).toBeGreaterThan(0);
      // Recorded as { "<namespace>::<rule id>": reason } on the construct.
      for (const { path, data } of acknowledged) {
        for (const [id, reason] of Object.entries(data as Record<string, unknown>)) {
          expect(id, path).toMatch(/::AwsSolutions-[A-Z]+\d+/);
          // A reason a reviewer can check: a sentence, not a placeholder.
          expect(String(reason).length, `${path} ${id}`).toBeGreaterThan(60);
        }
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    "fails on a new finding: a bucket without access logs added to the stack",
    () => {
      const { violations } = synthWithNag((stack) => {
        new Bucket(stack, "Unlogged", { enforceSSL: true });
      });
      expect(violations).toContain("AwsSolutions-S1 at Platen-prod/Unlogged/Resource");
    },
    SYNTH_TIMEOUT_MS,
  );
});
