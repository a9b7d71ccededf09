import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./helpers/longest-first.ts";

/**
 * Lives under test/ so the top level keeps the designed layout. Integration tests start
 * the whole local stack (dynalite, fauxqs, Chromium) in child processes: on 2 cores,
 * more than two files at once only makes everything slower.
 */
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Lazily starts one default stack per worker for the files that call sharedStack().
    globalSetup: ["test/helpers/stack-broker.ts"],
    // Longest files first (helpers/file-durations.json), so both workers end together.
    sequence: { sequencer: LongestFirst },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
