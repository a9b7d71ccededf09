/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy -c stage=prod`). Stage and custom domains
 * come from context; without domains the generated execute-api URLs are used.
 */
import { App } from "aws-cdk-lib";
import { PlatenStack } from "./stack/platen-stack.ts";

const app = new App();

/** A context value as a non-empty string, or undefined. */
function context(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

const stage = context("stage") ?? "dev";

new PlatenStack(app, `Platen-${stage}`, {
  stage,
  // Env-agnostic unless the CLI knows the account/region (a profile or AWS_REGION):
  // synth works offline, deploy targets the CLI's account.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  domains: {
    baseDomain: context("baseDomain"),
    authDomain: context("authDomain"),
    siteDomain: context("siteDomain"),
    certificateArn: context("certificateArn"),
  },
  alarmEmail: context("alarmEmail"),
  // B-T signatures' time-stamp authority (shared/signing/README.md): -c tsaUrl=https://… [-c tsaPolicy=1.2.3]
  timestamps: { tsaUrl: context("tsaUrl"), tsaPolicyOid: context("tsaPolicy") },
  description: `Platen document-generation service (${stage})`,
  tags: { project: "platen", stage },
});

app.synth();
