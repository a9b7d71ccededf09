// First: sets the process up like the Lambda runtime before any handler module loads.
import "./invocation-scope.ts";
import { resolve } from "node:path";
import { startLocalStack } from "./stack.ts";

/**
 * `npm start`: the whole service on this machine (no AWS account, no Docker).
 * PORT (default 3000) and PLATEN_DATA_DIR (default .platen) configure it; Ctrl-C stops it.
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = resolve(process.env.PLATEN_DATA_DIR ?? ".platen");
  const log = (msg: string) => console.log(`[platen] ${msg}`);
  log(`starting the local stack (data dir ${dataDir})`);
  const stack = await startLocalStack({
    port,
    dataDir,
    testHooks: process.env.PLATEN_TEST_HOOKS === "1",
    timeoutScale: Number(process.env.PLATEN_TIMEOUT_SCALE ?? 1),
    visibilityScale: Number(process.env.PLATEN_VISIBILITY_SCALE ?? 1),
    sweepSeconds: process.env.PLATEN_SWEEP_SECONDS ? Number(process.env.PLATEN_SWEEP_SECONDS) : undefined,
    log,
  });
  log(`API ready: ${stack.localJson.apiBaseUrl}`);
  log(`credentials and design ids: ${stack.localJsonPath}`);
  // Machine-readable line for tests and scripts that start the stack as a child process.
  console.log(`PLATEN_READY ${JSON.stringify({ port: stack.port, localJson: stack.localJsonPath })}`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    await stack.stop();
    log("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err: Error) => {
  const lockHint = /LOCK|lock/.test(String(err.message)) ? " (is another `npm start` using this data dir?)" : "";
  console.error(`[platen] failed to start: ${err.message}${lockHint}`);
  process.exit(1);
});
