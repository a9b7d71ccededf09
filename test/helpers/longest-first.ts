import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const repoRoot = resolve(import.meta.dirname, "../..");
const durationsFile = resolve(import.meta.dirname, "file-durations.json");

/** Seconds a file took in a full run (file-durations-reporter.ts), by path from the repository root. */
const durations = (): Record<string, number> => JSON.parse(readFileSync(durationsFile, "utf8"));

/** A file not measured yet: guessed by its folder (whole stacks there, none elsewhere). */
const guess = (path: string) => (/^test\/(integration|e2e|faults)\//.test(path) ? 15 : 2);

/**
 * Runs the longest files first, from the durations of a past full run, so the two workers
 * end together instead of one running a minute-long file alone at the end. A fresh clone
 * has no vitest cache, and vitest alone orders such a run by file size.
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = durations();
    const seconds = (spec: TestSpecification) => {
      const path = relative(repoRoot, spec.moduleId);
      return known[path] ?? guess(path);
    };
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
