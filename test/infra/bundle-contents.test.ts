import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { functions } from "#shared/definitions/index.ts";
import { SYNTH_TIMEOUT_MS } from "./synth.ts";

/** Traces a bundle keeps of puppeteer-core and @sparticuz/chromium, minified with kept names. */
const CHROMIUM_MARKERS = [/puppeteer/i, /ChromeLauncher/, /chromium\.br/, /swiftshader/];
const markersIn = (code: string) => CHROMIUM_MARKERS.filter((marker) => marker.test(code)).map(String);

const nonRender = Object.values(functions)
  .filter((def) => !("chromium" in def && def.chromium))
  .map((def) => def.id);

/**
 * The API functions that do not render must not carry Chromium or puppeteer: both cost
 * every cold start of those functions (module evaluation) for nothing. Bundled by the real
 * stack, as deployed.
 */
describe("bundle contents", () => {
  const work = mkdtempSync(join(tmpdir(), "platen-bundles-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("the markers are found where puppeteer and @sparticuz/chromium are bundled (minified, names kept)", async () => {
    const out = await build({
      entryPoints: ["shared/render/chromium-launch.ts"],
      bundle: true,
      platform: "node",
      format: "esm",
      minify: true,
      keepNames: true,
      write: false,
      logLevel: "error",
    });
    expect(markersIn(out.outputFiles[0]!.text)).toEqual(CHROMIUM_MARKERS.map(String));
  });

  it(
    `no non-render function's bundle contains them (${nonRender.join(", ")})`,
    async () => {
      expect(nonRender.length).toBeGreaterThan(5);
      const script = join(import.meta.dirname, "synth-bundles.ts");
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", script, join(work, "cdk.out"), ...nonRender],
        {
          maxBuffer: 2 ** 24,
        },
      );
      const codeDirs = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, string>;
      const found = Object.fromEntries(
        Object.entries(codeDirs).map(([id, dir]) => [id, markersIn(readFileSync(join(dir, "index.mjs"), "utf8"))]),
      );
      expect(found).toEqual(Object.fromEntries(nonRender.map((id) => [id, []])));
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    "the barcode encoder stays out of the Chromium functions' bundles and loads from their own node_modules",
    async () => {
      const script = join(import.meta.dirname, "synth-bundles.ts");
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", script, join(work, "cdk.out-render"), "render"],
        { maxBuffer: 2 ** 24 },
      );
      const { render: dir } = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, string>;
      expect(readFileSync(join(dir!, "index.mjs"), "utf8")).not.toMatch(/bwipp_qrcode|BWIPP_VERSION/);
      expect(existsSync(join(dir!, "node_modules/bwip-js/dist/bwipp.mjs"))).toBe(true);
      // What the barcode filter does on first use, resolved from the bundle's folder as Lambda would.
      const probe =
        'const b = await import("bwip-js/generic"); process.stdout.write(b.toSVG({ bcid: "qrcode", text: "x" }).slice(0, 4));';
      const { stdout: svg } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", probe], {
        cwd: dir,
      });
      expect(svg).toBe("<svg");
    },
    SYNTH_TIMEOUT_MS,
  );
});
