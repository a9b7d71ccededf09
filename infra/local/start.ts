// First: sets the process up like the Lambda runtime before any handler module loads.
import "./invocation-scope.ts";
import { formatReadyLine } from "./ready-line.ts";
import { type LocalStack, startLocalStack } from "./stack.ts";
import { readStartSettings } from "./start-settings.ts";
import { stopOnExit } from "./stop-on-exit.ts";

const log = (msg: string) => console.log(`[platen] ${msg}`);

/**
 * `npm start`: the whole service on this machine (no AWS account, no Docker).
 * PORT (default 3000) and PLATEN_DATA_DIR (default .platen) configure it (start-settings.ts); Ctrl-C stops it.
 */
async function main(): Promise<void> {
  const settings = readStartSettings();
  log(`starting the local stack (data dir ${settings.dataDir})`);
  let stack: LocalStack | undefined;
  // From the first moment: a stop while starting ends the process (what it opened dies with it).
  stopOnExit(async () => {
    if (!stack) process.exit(1);
    await stack.stop();
  }, log);
  stack = await startLocalStack({ ...settings, log });
  const { apiBaseUrl, siteUrl } = stack.localJson;
  console.log(formatReadyLine({ apiBaseUrl, siteUrl, localJsonPath: stack.localJsonPath }));
}

/** One line saying what to do, never a stack trace, for the mistakes a first start meets. */
function explain(err: NodeJS.ErrnoException): string {
  if (err.name === "AlreadyRunningError" || err.name === "ConfigError") return err.message;
  if (err.code === "EADDRINUSE")
    return `port ${readStartSettings().port} is in use by another program; set PORT to a free one`;
  const lockHint = /LOCK|lock/.test(String(err.message))
    ? " (is another `npm start` or `npm run admin` using this data dir?)"
    : "";
  return `failed to start: ${err.message}${lockHint}`;
}

main().catch((err: NodeJS.ErrnoException) => {
  console.error(`[platen] ${explain(err)}`);
  process.exit(1);
});
