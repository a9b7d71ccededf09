import { readFileSync } from "node:fs";
import { isAlive } from "./runtime-file.ts";

/** A clean stop waits for running invocations (at most 10 s); past this, the process just ends. */
const HARD_STOP_MS = 15_000;
const PARENT_POLL_MS = 500;
/** Signals this close to the first one are the same event delivered twice. */
const SAME_EVENT_MS = 1_000;

/**
 * Ends the stack however `npm start` ends: Ctrl-C (SIGINT), SIGTERM to npm or
 * to node, the terminal closing (SIGHUP), or npm itself going away. npm runs the script
 * through `sh -c`; a SIGTERM to npm ends npm and that shell but never reaches node, which
 * is then re-parented: so the parent (and, under npm, npm itself) is watched as well.
 * A second signal, or a stop that hangs, ends the process at once; Chromium's pipes
 * close with it, so the browsers end too.
 */
export function stopOnExit(stop: () => Promise<void>, log: (msg: string) => void): void {
  let stoppingSince: number | undefined;
  const stopOnce = (why: string, again: "exit" | "ignore") => {
    if (stoppingSince !== undefined) {
      // A terminal's Ctrl-C reaches node twice (from the terminal and forwarded by npm): only a later one insists.
      if (again === "exit" && Date.now() - stoppingSince > SAME_EVENT_MS) {
        log(`${why} again: exiting now`);
        process.exit(1);
      }
      return;
    }
    stoppingSince = Date.now();
    log(`${why}: stopping`);
    setTimeout(() => {
      log(`stop took over ${HARD_STOP_MS / 1000} s: exiting`);
      process.exit(1);
    }, HARD_STOP_MS).unref();
    stop().then(
      () => {
        log("stopped");
        process.exit(0);
      },
      (err: Error) => {
        log(`stop failed: ${err.message}`);
        process.exit(1);
      },
    );
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stopOnce(signal, "exit"));
  watchParents((why) => stopOnce(why, "ignore"));
}

function watchParents(onGone: (why: string) => void): void {
  const parent = process.ppid;
  const npm = process.env.npm_lifecycle_event ? findNpm(parent) : undefined;
  const timer = setInterval(() => {
    if (process.ppid !== parent) onGone(`parent process ${parent} ended`);
    else if (npm !== undefined && npm !== parent && !isAlive(npm)) onGone(`npm (pid ${npm}) ended`);
    else return;
    clearInterval(timer);
  }, PARENT_POLL_MS);
  timer.unref();
}

/** npm's pid: the parent, or the parent's parent when a shell runs the script (Linux /proc only). */
function findNpm(parent: number): number | undefined {
  for (let pid: number | undefined = parent, depth = 0; pid && depth < 2; pid = parentOf(pid), depth++) {
    if (commandOf(pid).includes("npm")) return pid;
  }
  return undefined;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}
