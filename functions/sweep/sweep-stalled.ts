import type { Context } from "aws-lambda";
import { systemClock } from "#shared/clock.ts";
import { type SweepReport, sweepStalled } from "#shared/generation/async/index.ts";
import { logger, startLogContext } from "#shared/observability/logger.ts";

/**
 * The sweeper (EventBridge schedule, shared/definitions/schedules.ts; a timer in the local
 * stack): finishes or fails requests whose acceptance or rendering stalled and relays
 * outbox events whose webhook deliveries were never queued.
 */
export async function handler(_event?: unknown, context?: Context): Promise<SweepReport> {
  startLogContext(context);
  const report = await sweepStalled(systemClock);
  if (report.failedFiles || report.relayed) logger.info("sweep", { ...report });
  return report;
}
