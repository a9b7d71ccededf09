import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdtemp, readlink, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { environment } from "#shared/aws/config.ts";

/** Where @sparticuz/chromium inflates its binary: `$TMPDIR/chromium` (it does not let us choose). */
const binary = () => join(tmpdir(), "chromium");
/** Written after a complete binary was put in place: from then on no process needs the lock. */
const inflatedMark = () => join(tmpdir(), "platen-chromium.inflated");
/** A symbolic link whose target is the holder's pid: created atomically, read without a race. */
const lockPath = () => join(tmpdir(), "platen-chromium-inflate.lock");
/** Inflating takes ~1.5 s; a lock this old is stale even if its pid was reused by another process. */
const STALE_LOCK_MS = 120_000;
const POLL_MS = 100;

let inflated: Promise<string> | undefined;

/**
 * CHROMIUM_PATH if given (the deployed functions: an unpacked layer), else the
 * @sparticuz/chromium binary, inflated to $TMPDIR once per machine.
 *
 * @sparticuz/chromium writes the binary in place and returns its path as soon as the file
 * exists, even while another process is still writing it. So a first inflation runs in a
 * child process whose TMPDIR is a private folder, and the finished file is renamed into
 * place (atomic: a reader sees no binary or a whole one), then marked done; later processes
 * take the path without any lock. A cross-process lock (its holder's pid, taken over at once
 * when that process is dead) only saves duplicate work: two processes inflating at the same
 * time each put a whole binary in place.
 */
export function resolveExecutablePath(configured?: string): Promise<string> {
  if (configured) return Promise.resolve(configured);
  inflated ??= inflateOnce().catch((error: unknown) => {
    inflated = undefined;
    throw error;
  });
  return inflated;
}

const isInflated = (): boolean => existsSync(inflatedMark()) && existsSync(binary());

async function inflateOnce(): Promise<string> {
  if (isInflated()) return binary();
  await acquireLock();
  try {
    if (isInflated()) return binary();
    await unlink(inflatedMark()).catch(() => {}); // the binary is about to be replaced
    const staging = await mkdtemp(join(tmpdir(), "platen-chromium-staging-"));
    try {
      await rename(await inflateInto(staging), binary());
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    await writeFile(inflatedMark(), `${binary()}\n`);
    return binary();
  } finally {
    await releaseLock();
  }
}

/** Runs @sparticuz/chromium's inflation in a child process with TMPDIR = `folder`; the binary's path there. */
function inflateInto(folder: string): Promise<string> {
  const script = [
    `const { default: chromium } = await import(${JSON.stringify(import.meta.resolve("@sparticuz/chromium"))});`,
    "process.stdout.write(await chromium.executablePath());",
  ].join("\n");
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script],
      { env: { ...environment(), TMPDIR: folder }, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`inflating Chromium failed: ${stderr || error.message}`)) : resolve(stdout.trim()),
    );
  });
}

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      await symlink(String(process.pid), lockPath()); // atomic: exactly one process creates it
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (await lockIsStale()) await unlink(lockPath()).catch(() => {});
    else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Removes the lock if it is still this process's (a waiter may have taken over a lock it thought stale). */
async function releaseLock(): Promise<void> {
  if ((await readlink(lockPath()).catch(() => undefined)) === String(process.pid))
    await unlink(lockPath()).catch(() => {});
}

async function lockIsStale(): Promise<boolean> {
  const [holder, ageMs] = await Promise.all([
    readlink(lockPath()).then(Number, () => Number.NaN),
    lstat(lockPath()).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    ),
  ]);
  // This process's own pid on a lock it does not hold (one inflation per process): a previous
  // process of the same pid (a restarted container) died holding it.
  return ageMs > STALE_LOCK_MS || holder === process.pid || (Number.isInteger(holder) && !processAlive(holder));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}
