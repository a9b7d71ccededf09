import { Duration } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { Construct } from "constructs";
import { schedules } from "#shared/definitions/index.ts";
import { pascalCase } from "./definitions.ts";
import type { PlatenFunction } from "./platen-function.ts";

/** One EventBridge rule per schedule of the definitions whose function exists (the local stack runs a timer instead). */
export function wireSchedules(scope: Construct, functions: Readonly<Record<string, PlatenFunction>>): void {
  for (const def of Object.values(schedules)) {
    const target = functions[def.function];
    if (!target) continue;
    new Rule(scope, `${pascalCase(def.id)}Schedule`, {
      description: `Runs ${def.function} every ${def.everyMinutes} minutes`,
      schedule: Schedule.rate(Duration.minutes(def.everyMinutes)),
      targets: [new LambdaFunction(target.fn, { retryAttempts: 0 })],
    });
  }
}
