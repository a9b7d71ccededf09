/**
 * How much the fuzz runs: `FUZZ_RUNS` cases per operation (operations that render get a third,
 * at least 10) and `FUZZ_SEED`, the seed every operation's own seed derives from, so a run is
 * reproduced by its seed alone. `npm test` runs the defaults; `npm run fuzz` raises the runs.
 */
export const DEFAULT_RUNS = 30;
export const DEFAULT_SEED = 20_260_421;

export const fuzzRuns = (): number => Number(process.env.FUZZ_RUNS || DEFAULT_RUNS);
export const fuzzSeed = (): number => Number(process.env.FUZZ_SEED || DEFAULT_SEED);

/** Cases for one operation: renders cost a second of Chromium each, refusals a few milliseconds. */
export function runsFor(renders: boolean): number {
  const runs = fuzzRuns();
  return renders ? Math.max(10, Math.ceil(runs / 3)) : runs;
}

/** An operation's own seed: the run's seed mixed with its id (FNV-1a), stable across runs and orders. */
export function seedFor(operationId: string): number {
  let h = 0x811c9dc5 ^ fuzzSeed();
  for (const ch of operationId) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return h | 0;
}

/**
 * Cases per route of the site and the auth host (fuzz-site, fuzz-auth): `FUZZ_RUNS` when set, else few, so that
 * each file runs in well under a minute with `npm test`; `npm run fuzz` raises it.
 */
export const HOST_DEFAULT_RUNS = 20;
export const hostRuns = (): number => Number(process.env.FUZZ_RUNS || HOST_DEFAULT_RUNS);
