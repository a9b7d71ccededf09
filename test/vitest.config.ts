import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./helpers/longest-first.ts";
import { tmpCheckedExclusions } from "./helpers/tmp-checked-files.ts";

/**
 * Unit files that set process-wide state (a module mock, the logger's level, AWS endpoints in the
 * environment) or depend on it. They run isolated; every other unit file shares its worker's module
 * graph with the files before it ("pure" below).
 */
const UNIT_ISOLATED = [
  "test/unit/bounded-cache.test.ts",
  "test/unit/http-edge.test.ts",
  "test/unit/observability.test.ts",
  ...inProcessDynaliteFiles(),
];

/**
 * Unit files on an in-process dynalite (helpers/in-process-dynalite.ts) point the environment's AWS
 * endpoints at it, and the AWS clients and configuration are made once per module graph: in a shared
 * graph the next such file would talk to the last one's stopped dynalite (ECONNREFUSED, by run order).
 */
function inProcessDynaliteFiles(): string[] {
  const dir = fileURLToPath(new URL("unit", import.meta.url));
  return readdirSync(dir)
    .filter(
      (name) => name.endsWith(".test.ts") && readFileSync(join(dir, name), "utf8").includes("startInProcessDynalite"),
    )
    .map((name) => `test/unit/${name}`);
}

/**
 * Lives under test/ so the top level keeps the designed layout. Integration tests start
 * the whole local stack (dynalite, fauxqs, Chromium) in child processes: on 2 cores,
 * more than two files at once only makes everything slower (measured: 3 workers took as long).
 */
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
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
    // The pure files' pool: one thread beside the two forks, sharing its module graph from file to file.
    // The forks run file after file too, each file's own modules reset (helpers/file-isolation.ts).
    poolOptions: { threads: { isolate: false, maxThreads: 1, minThreads: 1 }, forks: { isolate: false } },
    projects: [
      {
        // Pure rules: importing their modules again for each file was most of their time
        // (99 files: 76 s of CPU isolated, 29 s shared).
        extends: true,
        test: {
          name: "pure",
          include: ["test/unit/**/*.test.ts"],
          exclude: [...UNIT_ISOLATED, ...tmpCheckedExclusions()],
          pool: "threads",
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: ["test/{render,infra,integration,e2e,faults}/**/*.test.ts", ...UNIT_ISOLATED],
          // Run once, inside tmp-cleanup.test.ts's check of the temp folder (helpers/tmp-checked-files.ts).
          exclude: tmpCheckedExclusions(),
          // A clean start for each file in a worker that keeps node_modules loaded.
          setupFiles: ["test/helpers/file-isolation.ts"],
        },
      },
    ],
  },
});
