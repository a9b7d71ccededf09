import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { PlatenStack } from "./infra/stack/platen-stack.ts";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
const outdir = mkdtempSync("/tmp/nag-");
const app = new App({ outdir, context: { "aws:cdk:bundling-stacks": [], "@aws-cdk/core:validationReportJson": true } });
new PlatenStack(app, "Platen-prod", { stage: "prod" });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
try { app.synth(); console.log("synth ok"); } catch (e) { console.log("THROW", String(e).slice(0, 3000)); }
console.log(readdirSync(outdir));
