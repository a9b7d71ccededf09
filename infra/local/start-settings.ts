import { resolve } from "node:path";
import { type Environment, environment, flag, integer, positiveNumber } from "#shared/config/settings.ts";
import type { LocalStackOptions } from "./stack.ts";

/** What `npm start` starts the local stack with, all but its log. */
export type StartSettings = Omit<LocalStackOptions, "log">;

/**
 * `npm start`'s settings (infra/README.md#configuration; the test ones: test/README.md):
 * `PORT` (0–65535, default 3000, 0 any free port), `PLATEN_DATA_DIR` (default `.platen`),
 * `PLATEN_TEST_HOOKS` (`1` on), `PLATEN_TIMEOUT_SCALE` and `PLATEN_VISIBILITY_SCALE` (positive
 * numbers, default 1), `PLATEN_SWEEP_SECONDS` (a positive number, default the sweep schedule's).
 */
export function readStartSettings(env: Environment = environment()): StartSettings {
  return {
    port: integer(env, "PORT", { min: 0, max: 65_535 }) ?? 3000,
    dataDir: resolve(env.PLATEN_DATA_DIR ?? ".platen"),
    testHooks: flag(env, "PLATEN_TEST_HOOKS") ?? false,
    timeoutScale: positiveNumber(env, "PLATEN_TIMEOUT_SCALE") ?? 1,
    visibilityScale: positiveNumber(env, "PLATEN_VISIBILITY_SCALE") ?? 1,
    sweepSeconds: positiveNumber(env, "PLATEN_SWEEP_SECONDS"),
  };
}
