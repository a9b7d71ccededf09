import type { SweepReport } from "#shared/generation/async/index.ts";
import { schedules } from "#shared/definitions/index.ts";
import { lambdaContext, loadHandler } from "./load-handler.ts";

/** Runs the sweep function's handler once, like its EventBridge rule would. */
export async function runSweep(): Promise<SweepReport> {
  const def = schedules.sweep;
  const handler = await loadHandler(def.function);
  return (await handler(
    { source: "aws.events", "detail-type": "Scheduled Event" },
    lambdaContext(def.function, 300, crypto.randomUUID()),
  )) as SweepReport;
}

/**
 * The local stand-in for the sweep schedule: every `everySeconds` (the definition's
 * minutes unless PLATEN_SWEEP_SECONDS says otherwise), one run at a time.
 */
export function startSweeper(everySeconds = schedules.sweep.everyMinutes * 60): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(runSweep)
      .catch((err: Error) =>
        console.error(JSON.stringify({ level: "error", msg: "sweep failed", error: String(err.stack ?? err) })),
      );
  }, everySeconds * 1000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
