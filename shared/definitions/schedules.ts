import { SWEEP_EVERY_MINUTES } from "#shared/generation/sweep-schedule.ts";

/** A function run on a fixed schedule: an EventBridge rule in AWS, a timer in the local stack. */
export interface ScheduleDefinition {
  id: string;
  /** Function id (functions.ts). */
  function: string;
  everyMinutes: number;
}

export const schedules = {
  sweep: { id: "sweep", function: "sweep", everyMinutes: SWEEP_EVERY_MINUTES },
} as const satisfies Record<string, ScheduleDefinition>;
