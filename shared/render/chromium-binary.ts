import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { lstat, mkdtemp, readdir, readlink, rename, rm, stat, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { environment } from "#shared/config/settings.ts";

/** Where @sparticuz/chromium inflates its binary: `$TMPDIR/chromium` (it does not let us choose). */
const binary = () => join(tmpdir(), "chromium");
/**
 * Written after every file of a complete layout was put in place; it lists those files
 * (path relative to the temp folder, and size). From then on no process needs the lock.
 */
const inflatedMark = () => join(tmpdir(), "platen-chromium.inflated");
/** A symbolic link whose target is the holder's pid: created atomically, read without a race. */
const lockPath = () => join(tmpdir(), "platen-chromium-inflate.lock");
/**
 * Held (created exclusively) by the one process that is breaking a stale lock, so two
 * waiters that both saw the same dead holder cannot both break it: the second would
 * otherwise remove the lock the first had just taken, and both would inflate at once.
 */
const takeoverPath = () => join(tmpdir(), "platen-chromium-inflate.takeover");
const STAGING_PREFIX = "platen-chromium-staging-";
/** Inflating takes ~1.5 s; a lock this old is stale even if its pid was reused by another process. */
const STALE_LOCK_MS = 120_000;
const POLL_MS = 100;
/** Breaking a stale lock takes microseconds; a take-over mark this old was left by a killed breaker. */
const TAKEOVER_STALE_MS = 10_000;

/** One file of the inflated layout, as the mark records it. */
export interface LayoutFile {
  /** Relative to the temp folder: `chromium`, `libEGL.so`, `fonts/…`, `al2023/lib/…`. */
  path: string;
  size: number;
}

let inflated: Promise<string> | undefined;

/**
 * CHROMIUM_PATH if given (the deployed functions: an unpacked layer), else the
 * @sparticuz/chromium binary, inflated to $TMPDIR once per machine.
 *
 * The headless shell needs more than its binary: @sparticuz/chromium also unpacks the
 * ANGLE/SwiftShader libraries (`libEGL.so`, `libGLESv2.so`), the Vulkan loader and ICD
 * (`libvulkan.so.1`, `libvk_swiftshader.so`, `vk_swiftshader_icd.json`), `fonts/`, and on
 * Amazon Linux 2023 `al2023/lib`; without them Chromium dies at its first page. And it
 * returns the binary's path as soon as the file exists, even while another process is
 * still writing it. So a first inflation runs in a child process whose TMPDIR is a private
 * staging folder; every file it unpacked is then moved into place (each rename atomic: a
 * reader sees no file or a whole one), the binary last, and only then is the mark written,
 * naming every file. A process that finds the mark and every file it names takes the path
 * without any lock; a missing or resized file makes it inflate again. A cross-process lock
 * (its holder's pid, taken over at once when that process is dead) keeps it to one
 * inflation per machine.
 */
export function resolveExecutablePath(configured?: string): Promise<string> {
  if (configured) return Promise.resolve(configured);
  inflated ??= inflateOnce().catch((error: unknown) => {
    inflated = undefined;
    throw error;
  });
  return inflated;
}

/** The files the mark in `folder` names, if it names a complete layout that is all still there. */
export function inflatedLayout(folder = tmpdir()): LayoutFile[] | undefined {
  let files: LayoutFile[];
  try {
    files = (JSON.parse(readFileSync(join(folder, "platen-chromium.inflated"), "utf8")) as { files: LayoutFile[] })
      .files;
  } catch {
    return undefined; // no mark, a half-written one, or one from before marks listed their files
  }
  if (!Array.isArray(files) || !files.some((f) => f.path === "chromium")) return undefined;
  const present = files.every((file) => {
    try {
      return statSync(join(folder, file.path)).size === file.size;
    } catch {
      return false;
    }
  });
  return present ? files : undefined;
}

async function inflateOnce(): Promise<string> {
  if (inflatedLayout()) return binary();
  await acquireLock();
  try {
    if (inflatedLayout()) return binary();
    await removeStaleStaging(); // left by a holder killed mid-inflation; the lock is ours now
    await unlink(inflatedMark()).catch(() => {}); // the layout is about to be replaced
    const staging = await mkdtemp(join(tmpdir(), `${STAGING_PREFIX}${process.pid}-`));
    try {
      await inflateInto(staging);
      const files = await listFiles(staging);
      await moveIntoPlace(staging, tmpdir());
      await writeMark(tmpdir(), files);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    return binary();
  } finally {
    await releaseLock();
  }
}

/**
 * Staging folders of earlier holders that died. Only the lock holder inflates, but a folder
 * whose process (its name carries the pid) is still alive is left alone all the same.
 */
async function removeStaleStaging(): Promise<void> {
  const stale = (await readdir(tmpdir())).filter((name) => {
    if (!name.startsWith(STAGING_PREFIX)) return false;
    const pid = Number(/^(\d+)-/.exec(name.slice(STAGING_PREFIX.length))?.[1]);
    return !Number.isInteger(pid) || pid === process.pid || !processAlive(pid);
  });
  await Promise.all(stale.map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })));
}

/** Runs @sparticuz/chromium's inflation in a child process with TMPDIR = `folder`. */
function inflateInto(folder: string): Promise<void> {
  const script = [
    `const { default: chromium } = await import(${JSON.stringify(import.meta.resolve("@sparticuz/chromium"))});`,
    "await chromium.executablePath();",
  ].join("\n");
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script],
      { env: { ...environment(), TMPDIR: folder }, maxBuffer: 1024 * 1024 },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`inflating Chromium failed: ${stderr || error.message}`)) : resolve(),
    );
  });
}

/** Every regular file under `folder`, with its size. */
async function listFiles(folder: string, under = folder): Promise<LayoutFile[]> {
  const entries = await readdir(under, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry): Promise<LayoutFile[]> => {
      const path = join(under, entry.name);
      if (entry.isDirectory()) return listFiles(folder, path);
      return [{ path: relative(folder, path), size: (await stat(path)).size }];
    }),
  );
  return nested.flat();
}

/**
 * Moves every entry of `staging` into `target`, the binary last. A folder (`fonts/`,
 * `al2023/`) replaces an older one whole: the old one is renamed aside, then removed.
 */
async function moveIntoPlace(staging: string, target: string): Promise<void> {
  const entries = (await readdir(staging, { withFileTypes: true })).sort(
    (a, b) => Number(a.name === "chromium") - Number(b.name === "chromium"),
  );
  for (const entry of entries) {
    const from = join(staging, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) await replaceFolder(from, to, join(staging, `${entry.name}.replaced`));
    else await rename(from, to); // replaces a file atomically
  }
}

/** rename() cannot replace a folder that holds files: move the old one aside and try again. */
async function replaceFolder(from: string, to: string, aside: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== "ENOTEMPTY" && code !== "EEXIST") || attempt === 5) throw error;
      await rm(aside, { recursive: true, force: true });
      await rename(to, aside).catch(() => {}); // gone already: another process moved it
    }
  }
  await rm(aside, { recursive: true, force: true });
}

/**
 * Writes the mark naming `files`, after checking every one of them is in `folder` with its
 * size; refuses (and writes nothing) if one is missing. Written aside and renamed, so a
 * reader never parses half a mark.
 */
export async function writeMark(folder: string, files: LayoutFile[]): Promise<void> {
  for (const file of files) {
    const size = await stat(join(folder, file.path)).then(
      (s) => s.size,
      () => undefined,
    );
    if (size !== file.size) throw new Error(`Chromium layout incomplete: ${file.path} is missing or partial`);
  }
  const mark = join(folder, "platen-chromium.inflated");
  await writeFile(`${mark}.${process.pid}`, `${JSON.stringify({ files }, null, 1)}\n`);
  await rename(`${mark}.${process.pid}`, mark);
}

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      await symlink(String(process.pid), lockPath()); // atomic: exactly one process creates it
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const stale = await staleHolder();
    if (stale === undefined || !(await breakStaleLock(stale)))
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Removes the lock if it still names `holder`, the holder judged stale. Checking and
 * removing run under the take-over mark, so of several waiters that judged the same holder
 * stale only one removes its lock; the others find the lock changed and leave it.
 */
async function breakStaleLock(holder: string): Promise<boolean> {
  try {
    await symlink(String(process.pid), takeoverPath());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // A breaker killed between the two steps (microseconds apart) leaves its mark: old is stale.
    const age = await lstat(takeoverPath()).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > TAKEOVER_STALE_MS) await unlink(takeoverPath()).catch(() => {});
    return false;
  }
  try {
    if ((await readlink(lockPath()).catch(() => undefined)) !== holder) return false;
    await unlink(lockPath()).catch(() => {});
    return true;
  } finally {
    await unlink(takeoverPath()).catch(() => {});
  }
}

/** Removes the lock if it is still this process's (a waiter may have taken over a lock it thought stale). */
async function releaseLock(): Promise<void> {
  if ((await readlink(lockPath()).catch(() => undefined)) === String(process.pid))
    await unlink(lockPath()).catch(() => {});
}

/** The lock's content if its holder is dead (or it is too old to trust), else undefined. */
async function staleHolder(): Promise<string | undefined> {
  const [content, ageMs] = await Promise.all([
    readlink(lockPath()).catch(() => undefined),
    lstat(lockPath()).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    ),
  ]);
  if (content === undefined) return undefined; // released meanwhile: try to take it again
  const holder = Number(content);
  // This process's own pid on a lock it does not hold (one inflation per process): a previous
  // process of the same pid (a restarted container) died holding it.
  const stale = ageMs > STALE_LOCK_MS || holder === process.pid || (Number.isInteger(holder) && !processAlive(holder));
  return stale ? content : undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}
