import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { File, Reporter } from "vitest";

const repoRoot = resolve(import.meta.dirname, "../..");

/**
 * Writes file-durations.json (what longest-first.ts orders by) from a full run:
 * `npx vitest run --config test/vitest.config.ts --reporter=default
 * --reporter=./test/helpers/file-durations-reporter.ts`. A file's seconds are its import
 * and its run with every hook (a stack's start too), which the JSON reporter leaves out. A run
 * of some files updates theirs; files that no longer exist drop out.
 */
export default class FileDurationsReporter implements Reporter {
  onFinished(files: File[] = []): void {
    const rows = files.map((f) => {
      const ms = (f.collectDuration ?? 0) + (f.result?.duration ?? 0);
      return [relative(repoRoot, f.filepath), Math.round(ms / 100) / 10] as const;
    });
    const out = resolve(import.meta.dirname, "file-durations.json");
    const before = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Record<string, number>) : {};
    const merged = Object.entries({ ...before, ...Object.fromEntries(rows) })
      .filter(([path]) => existsSync(resolve(repoRoot, path)))
      .sort(([a], [b]) => a.localeCompare(b));
    writeFileSync(out, `${JSON.stringify(Object.fromEntries(merged), null, 2)}\n`);
  }
}
