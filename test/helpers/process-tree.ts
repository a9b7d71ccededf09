import { readdirSync, readFileSync } from "node:fs";

/** Descendant processes of `rootPid` (from /proc): pid and command line. */
export function descendantsOf(rootPid: number): { pid: number; cmdline: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const found: { pid: number; cmdline: string }[] = [];
  const pending = [...(children.get(rootPid) ?? [])];
  while (pending.length) {
    const pid = pending.pop()!;
    try {
      found.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ") });
    } catch {
      continue;
    }
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** The browser processes (not their helpers) a stack launched: killing them is a Chromium crash. */
export function chromiumPidsOf(rootPid: number): number[] {
  return descendantsOf(rootPid)
    .filter((p) => /chrom|headless/i.test(p.cmdline.split(" ")[0] ?? "") && !p.cmdline.includes("--type="))
    .map((p) => p.pid);
}
