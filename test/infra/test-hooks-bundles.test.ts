import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { functions } from "#shared/definitions/index.ts";
import { bundlingOptions } from "#infra/stack/function-bundle.ts";
import { deployedBundles } from "../helpers/deployed-bundles.ts";
import { bundleCode } from "./synth.ts";

/** Traces of the local stack's test hooks in minified code with kept names. */
const HOOK_MARKERS = [
  // fault injection (shared/aws/fault-injection.ts)
  /\binjectFaults\b/,
  /\barmFaults\b/,
  /injected fault/,
  // the movable service clock (shared/clock.ts)
  /\bsetClockOffset\b/,
  /PLATEN_CLOCK_OFFSET_MS/,
];
const markersIn = (code: string) => HOOK_MARKERS.filter((marker) => marker.test(code)).map(String);

const root = resolve(import.meta.dirname, "../..");
/** Bundles `contents` as an entry, minified with kept names like the stack, with the given defines. */
async function bundle(contents: string, define: Record<string, string> = {}): Promise<string> {
  const out = await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    minify: true,
    keepNames: true,
    define,
    write: false,
    logLevel: "error",
  });
  return out.outputFiles[0]!.text;
}

/** What every handler uses of the two modules that carry hooks. */
const HANDLER_IMPORTS = `export { awsClients } from "#shared/aws/clients.ts"; export { systemClock } from "#shared/clock.ts";`;

describe("test hooks are compiled out of the deployed bundles", () => {
  const work = mkdtempSync(join(tmpdir(), "platen-hook-bundles-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("the markers are found where the hooks are compiled in (the sources as the local stack runs them)", async () => {
    const code = await bundle(
      `${HANDLER_IMPORTS} export { armFaults } from "#shared/aws/fault-injection.ts"; export { setClockOffset } from "#shared/clock.ts";`,
    );
    expect(markersIn(code)).toEqual(HOOK_MARKERS.map(String));
  });

  it("the stack's esbuild define drops them from the clients and the clock, which still work", async () => {
    const define = bundlingOptions().define ?? {};
    expect(define).toEqual({ "globalThis.__PLATEN_TEST_HOOKS__": "false" });
    const code = await bundle(HANDLER_IMPORTS, define);
    expect(markersIn(code)).toEqual([]);
    const path = join(work, "hooks-out.mjs");
    writeFileSync(path, code);
    const { systemClock } = (await import(path)) as typeof import("#shared/clock.ts");
    expect(Math.abs(systemClock.now().getTime() - Date.now())).toBeLessThan(1000);
  });

  it(`no deployed function's bundle contains them (${Object.keys(functions).length} functions, bundled by the real stack)`, async () => {
    const ids = Object.values(functions).map((def) => def.id);
    const codeDirs = await deployedBundles();
    expect(Object.keys(codeDirs).sort()).toEqual([...ids].sort());
    const found = Object.fromEntries(Object.entries(codeDirs).map(([id, dir]) => [id, markersIn(bundleCode(dir))]));
    expect(found).toEqual(Object.fromEntries(ids.map((id) => [id, []])));
  }, 900_000);
});
