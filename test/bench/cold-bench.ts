import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { removeDataDir, startStack } from "../helpers/local-stack.ts";
import { runColdPhase } from "./cold.ts";
import { runSiteColdPhase } from "./cold-site.ts";

/**
 * `npm run bench:cold`: the cold phase of `npm run bench` on its own (a local stack for the
 * emulators, the deployed bundles in fresh processes). BENCH_COLD_N sets the runs (10).
 * BENCH_COLD_CALLS=1: only the AWS-calls table (sync, async, render and the 100-file request with
 * its first render batch, once each; no floor, no timing table), for checking write counts.
 * BENCH_COLD_SYNC=1: only the floor, the sync function and its variants (the cold ratio, about
 * 5 s a round). BENCH_COLD_PROFILE=dir: the first round's sync run writes a V8 CPU profile there.
 * BENCH_COLD_COMPARE=dir: the asset folder of another generate-sync build (e.g. from main's
 * `test/infra/synth-bundles.ts`), run in the same rounds: a bundle change side by side;
 * BENCH_COLD_COMPARE_ENV='{"NODE_OPTIONS":"--enable-source-maps"}' adds to its environment.
 * BENCH_COLD_SITE=1: only the site's pages (cold-site.ts: `/`, `/designs` and an editor, signed in);
 * BENCH_COLD_SITE_COMPARE=dir: another build of the site (its saved asset folder) in the same rounds.
 * A full run measures the site's pages first, then the other functions.
 */
const callsOnly = process.env.BENCH_COLD_CALLS === "1";
const syncOnly = process.env.BENCH_COLD_SYNC === "1";
const siteOnly = process.env.BENCH_COLD_SITE === "1";
const siteCompareDir = process.env.BENCH_COLD_SITE_COMPARE || undefined;
const profileDir = process.env.BENCH_COLD_PROFILE || undefined;
const compareDir = process.env.BENCH_COLD_COMPARE || undefined;
const compareEnv = JSON.parse(process.env.BENCH_COLD_COMPARE_ENV || "{}") as Record<string, string>;
const compareArgs = (process.env.BENCH_COLD_COMPARE_ARGS ?? "").split(" ").filter(Boolean);
const n = callsOnly ? 1 : Number(process.env.BENCH_COLD_N ?? 10);
const bundle = await loadBundleFromDir("shared/designs/samples/invoice-ja");
const stack = await startStack({ env: { PLATEN_ACCESS_LOG: "0" } });
try {
  console.log(`cold starts, N=${n}:`);
  const log = (l: string) => console.log(l);
  const siteTable = callsOnly || syncOnly ? [] : await runSiteColdPhase(stack, n, log, siteCompareDir);
  const table = siteOnly
    ? []
    : await runColdPhase(stack, bundle, bundle.manifest.sampleParams as Record<string, unknown>, n, log, {
        callsOnly,
        syncOnly,
        profileDir,
        compareDir,
        compareEnv,
        compareArgs,
      });
  console.log();
  for (const line of [...table, ...(table.length && siteTable.length ? [""] : []), ...siteTable]) console.log(line);
} finally {
  await stack.stop();
  removeDataDir(stack.dataDir);
}
process.exit(0);
