import { mkdir, rmdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import chromium from "@sparticuz/chromium";

const LOCK_DIR = join(tmpdir(), "platen-chromium-inflate.lock");
/** Inflating takes ~1.5 s; a lock older than this belongs to a process that died. */
const STALE_LOCK_MS = 120_000;
const POLL_MS = 100;

let inflated: Promise<string> | undefined;

/**
 * CHROMIUM_PATH if given, else the @sparticuz/chromium binary, inflated to $TMPDIR once.
 * @sparticuz/chromium returns the path as soon as the file exists, even while another
 * process is still writing it (parallel test workers, a bench beside the local stack),
 * so inflation runs under a cross-process lock directory.
 */
export function resolveExecutablePath(configured?: string): Promise<string> {
  if (configured) return Promise.resolve(configured);
  inflated ??= withInflateLock(() => chromium.executablePath()).catch((error: unknown) => {
    inflated = undefined;
    throw error;
  });
  return inflated;
}

async function withInflateLock<T>(work: () => Promise<T>): Promise<T> {
  await acquireLock();
  try {
    return await work();
  } finally {
    await rmdir(LOCK_DIR).catch(() => {});
  }
}

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      await mkdir(LOCK_DIR); // atomic: exactly one process creates it
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const age = await stat(LOCK_DIR).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > STALE_LOCK_MS) await rmdir(LOCK_DIR).catch(() => {});
    else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
