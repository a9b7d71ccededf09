import { vi } from "vitest";

/**
 * Each file of the "isolated" project starts as if in a process of its own, in a worker that
 * ran other files before it (test/vitest.config.ts). A fresh process per file re-imported the
 * AWS SDK, puppeteer and the rest of node_modules every time: 80 s of the suite's 2 cores went
 * to collecting files. Node keeps those packages loaded; what a file could see of the files
 * before it is reset here, before its own imports:
 * - the environment, as the worker started with it (useStackEmulators and the files that set
 *   variables of their own leave theirs behind);
 * - the project's own modules, evaluated again (the AWS clients, configuration, keys and
 *   caches they made for the last file's stack).
 * Module mocks outlive this reset: a file that mocks a module unmocks it in its afterAll.
 */
const state = globalThis as { __platenWorkerEnv?: Record<string, string | undefined> };
state.__platenWorkerEnv ??= { ...process.env };
const workerEnv = state.__platenWorkerEnv;
for (const name of Object.keys(process.env)) if (!(name in workerEnv)) delete process.env[name];
Object.assign(process.env, workerEnv);
vi.resetModules();
// Each file's modules hook the process's exit anew (chromium-launch.ts kills its browsers, the
// signing fixtures remove their folder): one small listener per file for the worker's life.
process.setMaxListeners(500);
