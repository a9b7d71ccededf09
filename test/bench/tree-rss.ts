import { readdirSync, readFileSync } from "node:fs";

/** Resident memory (MB) of one process, from /proc. */
export function processRssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Resident memory (MB) of a process and all its descendants (the stack plus its Chromiums), from /proc. */
export function treeRssMb(rootPid: number): number {
  const { rss } = readProcTable();
  return [rootPid, ...descendantPids(rootPid)].reduce((total, pid) => total + (rss.get(pid) ?? 0), 0) / 1024;
}

/** Every process below `rootPid` (children, their children, …), from /proc. */
export function descendantPids(rootPid: number): number[] {
  const { children } = readProcTable();
  const found: number[] = [];
  const stack = [...(children.get(rootPid) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

function readProcTable(): { children: Map<number, number[]>; rss: Map<number, number> } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const ppid = Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
      rss.set(Number(entry), Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  return { children, rss };
}
