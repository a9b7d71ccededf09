import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { synthDeployedFunctions, unzippedSizeMb } from "../bench/cold-artefacts.ts";

/**
 * `node --import tsx test/infra/synth-bundles.ts <outdir> <id>…`: the functions' bundles as
 * the stack deploys them; prints `{ id: codeDir }`. A child process, so a test waiting for
 * minutes of esbuild keeps its event loop (and its runner's heartbeat) free. Beside the assets it
 * writes `unzipped-sizes.json`: each function's code plus its layers in MB, as Lambda counts them
 * (function-size.test.ts holds them under the limit).
 */
const UNZIPPED_SIZES_FILE = "unzipped-sizes.json";
const [outdir, ...ids] = process.argv.slice(2);
const deployed = synthDeployedFunctions(ids, outdir!);
writeFileSync(
  join(outdir!, UNZIPPED_SIZES_FILE),
  JSON.stringify(Object.fromEntries(Object.values(deployed).map((fn) => [fn.id, unzippedSizeMb(fn)]))),
);
// The last line: bundling progress may share stdout.
process.stdout.write(
  `\n${JSON.stringify(Object.fromEntries(Object.values(deployed).map((fn) => [fn.id, fn.codeDir])))}\n`,
);
