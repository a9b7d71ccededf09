import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { removeDataDir, startStack } from "../helpers/local-stack.ts";
import { runColdPhase } from "./cold.ts";

/**
 * `npm run bench:cold`: the cold phase of `npm run bench` on its own (a local stack for the
 * emulators, the deployed bundles in fresh processes). BENCH_COLD_N sets the runs (10).
 * BENCH_COLD_CALLS=1: only the AWS-calls table (sync, async, render and the 100-file request with
 * its first render batch, once each; no floor, no timing table), for checking write counts.
 */
const callsOnly = process.env.BENCH_COLD_CALLS === "1";
const n = callsOnly ? 1 : Number(process.env.BENCH_COLD_N ?? 10);
const bundle = await loadBundleFromDir("shared/designs/samples/invoice-ja");
const stack = await startStack({ env: { PLATEN_ACCESS_LOG: "0" } });
try {
  console.log(`cold starts, N=${n}:`);
  const table = await runColdPhase(
    stack,
    bundle,
    bundle.manifest.sampleParams as Record<string, unknown>,
    n,
    (l) => console.log(l),
    { callsOnly },
  );
  console.log();
  for (const line of table) console.log(line);
} finally {
  await stack.stop();
  removeDataDir(stack.dataDir);
}
process.exit(0);
