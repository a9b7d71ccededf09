import { descendants } from "./processes.ts";

/** The browser processes (not their helpers) a stack launched: killing them is a Chromium crash. */
export function chromiumPidsOf(rootPid: number): number[] {
  return descendants(rootPid)
    .filter((p) => /chrom|headless/i.test(p.command.split(" ")[0] ?? "") && !p.command.includes("--type="))
    .map((p) => p.pid);
}
