import { existsSync } from "node:fs";
import { lstat, readlink, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import chromium from "@sparticuz/chromium";

/** Where @sparticuz/chromium inflates its binary (it does not let us choose). */
const BINARY = join(tmpdir(), "chromium");
/** Written after an inflation finished: from then on no process needs the lock. */
const INFLATED_MARK = join(tmpdir(), "platen-chromium.inflated");
/** A symbolic link whose target is the holder's pid: created atomically, read without a race. */
const LOCK = join(tmpdir(), "platen-chromium-inflate.lock");
/** Inflating takes ~1.5 s; a lock this old is stale even if its pid was reused by another process. */
const STALE_LOCK_MS = 120_000;
const POLL_MS = 100;

let inflated: Promise<string> | undefined;

/**
 * CHROMIUM_PATH if given, else the @sparticuz/chromium binary, inflated to $TMPDIR once
 * per machine. @sparticuz/chromium returns the path as soon as the file exists, even while
 * another process is still writing it (parallel test workers, a bench beside the local
 * stack), so inflation runs under a cross-process lock and is marked done when complete;
 * after that every process takes the path without the lock. A lock whose holder died (a
 * SIGKILLed stack) is taken over at once, not after minutes of browsers "not ready".
 */
export function resolveExecutablePath(configured?: string): Promise<string> {
  if (configured) return Promise.resolve(configured);
  inflated ??= inflateOnce().catch((error: unknown) => {
    inflated = undefined;
    throw error;
  });
  return inflated;
}

const isInflated = (): boolean => existsSync(INFLATED_MARK) && existsSync(BINARY);

async function inflateOnce(): Promise<string> {
  if (isInflated()) return BINARY;
  await acquireLock();
  try {
    if (isInflated()) return BINARY;
    // A binary without the mark was being written by a process that died half-way.
    await rm(BINARY, { force: true });
    const path = await chromium.executablePath();
    await writeFile(INFLATED_MARK, `${path}\n`);
    return path;
  } finally {
    await unlink(LOCK).catch(() => {});
  }
}

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      await symlink(String(process.pid), LOCK); // atomic: exactly one process creates it
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (await lockIsStale()) await unlink(LOCK).catch(() => {});
    else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function lockIsStale(): Promise<boolean> {
  const [holder, ageMs] = await Promise.all([
    readlink(LOCK).then(Number, () => Number.NaN),
    lstat(LOCK).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    ),
  ]);
  return ageMs > STALE_LOCK_MS || (Number.isInteger(holder) && !processAlive(holder));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}
