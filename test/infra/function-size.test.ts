import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { functions } from "#shared/definitions/index.ts";
import { deployedBundles } from "../helpers/deployed-bundles.ts";

/** The run's one build of every function's bundle (deployed-bundles.ts), minutes on a loaded machine. */
const BUNDLES_TIMEOUT_MS = 900_000;
/**
 * Lambda unpacks at most 250 MB of code and layers per function; the guard leaves 15 MB of room, so a
 * dependency that would push a function over fails here, not at deploy (test/bench/README.md prints the sizes).
 */
const MAX_UNZIPPED_MB = 235;

describe("deployed function sizes", () => {
  it(
    `keeps every function's code plus layers, unzipped, at most ${MAX_UNZIPPED_MB} MB`,
    async () => {
      const dirs = await deployedBundles();
      const outdir = dirname(Object.values(dirs)[0]!);
      const sizes = JSON.parse(readFileSync(join(outdir, "unzipped-sizes.json"), "utf8")) as Record<string, number>;
      expect(Object.keys(sizes).sort()).toEqual(
        Object.values(functions)
          .map((f) => f.id)
          .sort(),
      );
      const over = Object.entries(sizes).filter(([, mb]) => mb > MAX_UNZIPPED_MB);
      expect(over.map(([id, mb]) => `${id}: ${mb.toFixed(1)} MB`)).toEqual([]);
      // The Chromium functions carry the layers: the largest, and measured, not assumed.
      const chromium = Object.values(functions)
        .filter((f) => "chromium" in f && f.chromium)
        .map((f) => f.id);
      for (const id of chromium) expect(sizes[id], id).toBeGreaterThan(50);
    },
    BUNDLES_TIMEOUT_MS,
  );
});
