import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * `<dataDir>/runtime.json`: which process serves this data folder and where. Written with
 * just the pid (and the port once known) while starting, in full when ready, removed on a
 * clean stop. A file whose pid is gone is left from a crash and means nothing.
 */
export interface Runtime {
  pid: number;
  port?: number;
  /** Absent while the stack is starting. */
  endpoints?: { dynamodb: string; aws: string };
  queueUrls?: Record<string, string>;
  urls?: { apiBaseUrl: string; authUrl: string; siteUrl: string };
}

/** A second `npm start` on a data folder in use: one line for the user, exit code 1. */
export class AlreadyRunningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AlreadyRunningError";
  }
}

export const runtimePath = (dataDir: string) => join(dataDir, "runtime.json");

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * After a crash and a reboot the pid may belong to something else: on Linux the process's
 * command line tells (its entry, as source or as the test suite's prebuilt copy; elsewhere a live pid
 * is taken at its word).
 */
function runsTheStack(pid: number): boolean {
  try {
    return /infra\/local\/start\.[jt]s/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ENOENT" || !existsSync("/proc/self");
  }
}

/** The runtime of a live process serving the data folder, if any. */
export function readLiveRuntime(dataDir: string): Runtime | undefined {
  const path = runtimePath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    const runtime = JSON.parse(readFileSync(path, "utf8")) as Runtime;
    const serving =
      Number.isInteger(runtime.pid) && runtime.pid !== process.pid && isAlive(runtime.pid) && runsTheStack(runtime.pid);
    return serving ? runtime : undefined;
  } catch {
    return undefined; // half-written by a crash: nobody is serving from it
  }
}

/**
 * Claims the data folder for this process before anything opens its databases, so a
 * second start says who has it instead of failing deep inside the emulators.
 */
export function claimDataDir(dataDir: string): void {
  const running = readLiveRuntime(dataDir);
  if (running) {
    const where = running.port ? `running on port ${running.port}` : "starting";
    throw new AlreadyRunningError(
      `Platen is already ${where} (pid ${running.pid}) with this data folder (${dataDir}); stop it or set PLATEN_DATA_DIR`,
    );
  }
  writeRuntime(dataDir, { pid: process.pid });
}

export function writeRuntime(dataDir: string, runtime: Runtime): void {
  writeFileSync(runtimePath(dataDir), JSON.stringify(runtime));
}

/** Removes the file if it is this process's (a second start must not remove the first one's). */
export function removeRuntime(dataDir: string): void {
  try {
    const runtime = JSON.parse(readFileSync(runtimePath(dataDir), "utf8")) as Runtime;
    if (runtime.pid !== process.pid) return;
  } catch {
    // missing or unreadable: nothing of ours to keep
  }
  rmSync(runtimePath(dataDir), { force: true });
}
