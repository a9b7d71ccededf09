import { synthDeployedFunctions } from "../bench/cold-artefacts.ts";

/**
 * `node --import tsx test/infra/synth-bundles.ts <outdir> <id>…`: the functions' bundles as
 * the stack deploys them; prints `{ id: codeDir }`. A child process, so a test waiting for
 * minutes of esbuild keeps its event loop (and its runner's heartbeat) free.
 */
const [outdir, ...ids] = process.argv.slice(2);
const deployed = synthDeployedFunctions(ids, outdir!);
// The last line: bundling progress may share stdout.
process.stdout.write(
  `\n${JSON.stringify(Object.fromEntries(Object.values(deployed).map((fn) => [fn.id, fn.codeDir])))}\n`,
);
