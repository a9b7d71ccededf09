import { readdirSync, readFileSync, rmSync } from "node:fs";

/** Every process below `rootPid` (the stack's node and its Chromiums), from /proc. */
export function descendants(rootPid: number): { pid: number; command: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // ended while we looked
    }
  }
  const found: { pid: number; command: string }[] = [];
  const todo = [...(children.get(rootPid) ?? [])];
  while (todo.length) {
    const pid = todo.pop()!;
    found.push({ pid, command: commandOf(pid) });
    todo.push(...(children.get(pid) ?? []));
  }
  return found;
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

/** Running, not a zombie (a re-parented process's exit status may wait long for a reaper in containers). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * The profile folders (`--user-data-dir`) of the Chromiums below `rootPid`. puppeteer
 * removes a profile when its browser closes; after a SIGKILL nobody does, so a test that
 * kills a stack removes them itself.
 */
export function chromiumProfiles(rootPid: number): string[] {
  const dirs = descendants(rootPid).flatMap(({ command }) => /--user-data-dir=(\S+)/.exec(command)?.[1] ?? []);
  return [...new Set(dirs)];
}

/**
 * Removes killed browsers' profiles. A Chromium helper that outlives its browser (one the kill
 * reparented away from the stack, such as the crash handler) may still write into one for a
 * while (ENOTEMPTY mid-removal): Node's own retries cover a moment, and the removal is tried
 * again for up to 10 s before it fails the test.
 */
export async function removeDirs(dirs: string[]): Promise<void> {
  for (let waited = 0; ; waited += 500) {
    try {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOTEMPTY" || waited >= 10_000) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
