import { systemClock } from "#shared/clock.ts";
import { type SweepReport, sweepStalled } from "#shared/generation/sweep.ts";

/**
 * The sweeper (EventBridge schedule, infra/definitions/schedules.ts; a timer in the local
 * stack): finishes or fails requests whose acceptance or rendering stalled and relays
 * outbox events whose webhook deliveries were never queued.
 */
export async function handler(): Promise<SweepReport> {
  const report = await sweepStalled(systemClock);
  if (report.failedFiles || report.relayed) console.log(JSON.stringify({ level: "info", msg: "sweep", ...report }));
  return report;
}
