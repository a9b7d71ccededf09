import { RemovalPolicy } from "aws-cdk-lib";
import { RetentionDays } from "aws-cdk-lib/aws-logs";

/** Deployment stages; `dev` is the default of `cdk synth`/`cdk deploy`. */
export type Stage = "dev" | "prod";

/** What differs between stages, decided once here instead of `if (prod)` all over the stack. */
export interface StageSettings {
  stage: Stage;
  /** Physical-name prefix of tables, queues and functions: `platen-<stage>`. */
  prefix: string;
  /** prod keeps data when the stack or a resource is deleted; dev cleans up. */
  removalPolicy: RemovalPolicy;
  /** Lambda and API access logs: a month in dev, a year in prod. */
  logRetention: RetentionDays;
}

/**
 * Settings of a stage; throws on an unknown name so a typo in `-c stage=` never deploys
 * a half-configured stack.
 */
export function stageSettings(stage: string): StageSettings {
  if (stage !== "dev" && stage !== "prod") {
    throw new Error(`Unknown stage "${stage}": use -c stage=dev (default) or -c stage=prod.`);
  }
  const prod = stage === "prod";
  return {
    stage,
    prefix: `platen-${stage}`,
    removalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    logRetention: prod ? RetentionDays.ONE_YEAR : RetentionDays.ONE_MONTH,
  };
}
