/**
 * The service clock. Every time rule (24 h job retention, file retention, rate windows)
 * reads it, so tests move it instead of waiting. The offset only ever changes in the
 * local stack's test hooks (PLATEN_TEST_HOOKS=1); the deployed bundles have no offset at all
 * (compiled out: shared/test-hooks.d.ts).
 */
import { environment, integer } from "#shared/config/settings.ts";

// A test hook, not configuration (no deployment sets it): read beside the hook it arms, not in
// shared/aws/config.ts, so the hook and its switch stay one piece.
let offsetMs = globalThis.__PLATEN_TEST_HOOKS__ !== false ? (integer(environment(), "PLATEN_CLOCK_OFFSET_MS") ?? 0) : 0;

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: globalThis.__PLATEN_TEST_HOOKS__ !== false ? () => new Date(Date.now() + offsetMs) : () => new Date(),
};

/** Moves the clock by setting an absolute offset from the real time. */
export function setClockOffset(ms: number): void {
  offsetMs = ms;
}

export function clockOffset(): number {
  return offsetMs;
}
