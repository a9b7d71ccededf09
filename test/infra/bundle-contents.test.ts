import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { functions } from "#shared/definitions/index.ts";
import { deployedBundles } from "../helpers/deployed-bundles.ts";
import { bundleCode } from "./synth.ts";

/** The run's one build of every function's bundle (deployed-bundles.ts), minutes on a loaded machine. */
const BUNDLES_TIMEOUT_MS = 900_000;

/** Traces a bundle keeps of puppeteer-core and @sparticuz/chromium, minified with kept names. */
const CHROMIUM_MARKERS = [/puppeteer/i, /CdpBrowser/, /chromium\.br/, /swiftshader/];
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
      const all = await deployedBundles();
      const codeDirs = Object.fromEntries(nonRender.map((id) => [id, all[id]!]));
      const found = Object.fromEntries(Object.entries(codeDirs).map(([id, dir]) => [id, markersIn(bundleCode(dir))]));
      expect(found).toEqual(Object.fromEntries(nonRender.map((id) => [id, []])));
    },
    BUNDLES_TIMEOUT_MS,
  );

  it(
    "the barcode encoders are chunks of the Chromium functions' bundles (QR codes apart), only the filter's symbologies, loaded only by import()",
    async () => {
      const { render: dir } = await deployedBundles();
      const index = readFileSync(join(dir!, "index.mjs"), "utf8");
      expect(index).not.toMatch(/bwipp_japanpost|BWIPP_VERSION|getBestMask/);
      const chunkWith = (pattern: RegExp) =>
        readdirSync(join(dir!, "chunks")).find((name) =>
          pattern.test(readFileSync(join(dir!, "chunks", name), "utf8")),
        );
      const barcodeChunk = chunkWith(/bwipp_japanpost/);
      expect(barcodeChunk).toBeDefined();
      expect(index).not.toMatch(new RegExp(`from\\s*"\\./chunks/${barcodeChunk}"`));
      const barcodeCode = readFileSync(join(dir!, "chunks", barcodeChunk!), "utf8");
      expect(barcodeCode).toMatch(/bwipp_datamatrix/);
      // Symbologies the filter does not offer, and QR codes, which the `qrcode` package draws.
      expect(barcodeCode).not.toMatch(/bwipp_azteccode|bwipp_maxicode|bwipp_qrcode/);
      // What the barcode filter does on first use (the bundle keeps names): the chunk's toSVG draws a Data Matrix.
      const probe = `const b = await import(${JSON.stringify(join(dir!, "chunks", barcodeChunk!))}); const toSVG = Object.values(b).find((f) => f.name === "toSVG"); process.stdout.write(toSVG({ bcid: "datamatrix", text: "x" }).slice(0, 4));`;
      const { stdout: svg } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", probe]);
      expect(svg).toBe("<svg");
      // The QR encoder: a small chunk of its own (the `qrcode` package's core), without bwip-js.
      const qrChunk = chunkWith(/getBestMask/);
      expect(qrChunk).toBeDefined();
      expect(qrChunk).not.toBe(barcodeChunk);
      expect(index).not.toMatch(new RegExp(`from\\s*"\\./chunks/${qrChunk}"`));
      const qrCode = readFileSync(join(dir!, "chunks", qrChunk!), "utf8");
      expect(qrCode).not.toMatch(/BWIPP_VERSION|PNG|yargs/);
      expect(qrCode.length).toBeLessThan(100_000);
      const qrProbe = `const q = await import(${JSON.stringify(join(dir!, "chunks", qrChunk!))}); const qrSvg = Object.values(q).find((f) => f.name === "qrSvg"); process.stdout.write(qrSvg("x", "M", 4).slice(0, 4));`;
      const { stdout: qrSvg } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", qrProbe]);
      expect(qrSvg).toBe("<svg");
      // Split (function-bundle.ts SPLIT_OPTIONS): what only `import()` loads is in chunks, not in
      // the file every cold start compiles, and those chunks load from the bundle's folder.
      expect(index).not.toMatch(/"PDFDocument"|BidiServer/);
      const pdfChunk = chunkWith(/"PDFDocument"/);
      expect(pdfChunk).toBeDefined();
      expect(index).not.toMatch(new RegExp(`from\\s*"\\./chunks/${pdfChunk}"`)); // not a static import either
      const load = `await import(${JSON.stringify(join(dir!, "chunks", pdfChunk!))}); process.stdout.write("ok");`;
      const { stdout: loaded } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", load]);
      expect(loaded).toBe("ok");
      // The renderer starts Chromium itself and only connects (shared/render/puppeteer.ts):
      // puppeteer's launchers and what they bring are not in the bundle.
      expect(bundleCode(dir!)).not.toMatch(/ChromeLauncher|FirefoxLauncher/);
      // The browser-download code's proxy support is a stub (function-bundle.ts BUNDLE_STUBS), and so
      // are @sparticuz/chromium's download and inflate helpers (the layer holds Chromium unpacked).
      expect(bundleCode(dir!)).not.toMatch(/quickjs|PacProxyAgent/i);
      expect(bundleCode(dir!)).not.toMatch(/Invalid tar header|Maximum number of redirects exceeded/);
      expect(bundleCode(dir!)).toMatch(/tar-fs is not bundled/);
    },
    BUNDLES_TIMEOUT_MS,
  );
});

/**
 * Every module a function's entry loads at its cold start: the static `import` closure of its source
 * (a dynamic `import()` is a chunk loaded when it runs). One esbuild pass over every entry, its metafile read.
 */
async function coldClosures(): Promise<Record<string, Set<string>>> {
  const entries = [...Object.values(functions).map((def) => def.entry), ...DESIGN_PAGES];
  const { metafile } = await build({
    entryPoints: entries,
    bundle: true,
    platform: "node",
    format: "esm",
    splitting: true,
    outdir: "unused",
    write: false,
    metafile: true,
    external: ["@sparticuz/chromium", "bwip-js", "puppeteer-core"],
    logLevel: "error",
  });
  const closure = (entry: string) => {
    const seen = new Set([entry]);
    for (const path of seen)
      for (const i of metafile.inputs[path]?.imports ?? [])
        if (i.kind === "import-statement" && !i.external) seen.add(i.path);
    return seen;
  };
  return Object.fromEntries([
    ...Object.values(functions).map((def) => [def.id, closure(def.entry)]),
    ...DESIGN_PAGES.map((page) => [page, closure(page)]),
  ]);
}

/** The site's pages that show designs (dashboard, list, editor): they load no bundle checks (LiquidJS, the e-invoice rules). */
const DESIGN_PAGES = [
  "functions/site/pages/home.ts",
  "functions/site/studio/pages/designs.ts",
  "functions/site/studio/pages/design-editor.ts",
];

describe("what a cold start loads", () => {
  it("no function loads the PKCS#12 reader (pkijs) before it runs; the site loads no page's module before its request, and its design pages no bundle checks", async () => {
    const closures = await coldClosures();
    const loading = (pattern: RegExp) =>
      Object.entries(closures)
        .filter(([, paths]) => [...paths].some((p) => pattern.test(p)))
        .map(([id]) => id);
    expect(loading(/node_modules\/(pkijs|asn1js)\//)).toEqual([]);
    for (const page of DESIGN_PAGES)
      expect(
        [...closures[page]!].filter((p) => /node_modules\/liquidjs\/|bundle-rules/.test(p)),
        page,
      ).toEqual([]);
    const site = [...closures.site!];
    expect(
      site.filter((p) => /functions\/site\/(studio\/)?pages\/|node_modules\/liquidjs\/|shared\/openapi\//.test(p)),
    ).toEqual([]);
  }, 120_000);

  it("no function loads the S3 or SQS client before it runs (shared/aws/clients.ts `s3`, `sqs`: on first use), nor the sync function its after-work", async () => {
    const closures = await coldClosures();
    const loading = Object.entries(closures)
      .filter(([, paths]) =>
        [...paths].some((p) => /node_modules\/@aws-sdk\/(client-s3|client-sqs|s3-request-presigner)\//.test(p)),
      )
      .map(([id]) => id);
    expect(loading).toEqual([]);
    // What a sync answer's after-work needs (webhook stores and deliveries, kept records, the audit log of the
    // endpoints) loads after the answer (shared/generation/sync/sync-generation.ts), not at init; the e-invoice
    // model's schemas only with an e-invoice design.
    expect(
      [...closures["generate-sync"]!].filter(
        (p) =>
          /shared\/(webhooks|audit)\/|shared\/einvoice\/model\.ts/.test(p) ||
          (p.startsWith("shared/records/") && !p.endsWith("record-fields.ts")),
      ),
    ).toEqual([]);
    // The DynamoDB client is loaded statically (every function's first request reads the tables).
    expect([...closures["generate-sync"]!].some((p) => p.includes("node_modules/@aws-sdk/client-dynamodb/"))).toBe(
      true,
    );
  }, 120_000);
});
