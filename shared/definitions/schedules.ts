/** A function run on a fixed schedule: an EventBridge rule in AWS, a timer in the local stack. */
export interface ScheduleDefinition {
  id: string;
  /** Function id (functions.ts). */
  function: string;
  everyMinutes: number;
}

/** How often the sweeper runs (shared/generation/async/sweep.ts): the EventBridge schedule in AWS, a timer in the local stack. */
export const SWEEP_EVERY_MINUTES = 5;

export const schedules = {
  sweep: { id: "sweep", function: "sweep", everyMinutes: SWEEP_EVERY_MINUTES },
} as const satisfies Record<string, ScheduleDefinition>;
