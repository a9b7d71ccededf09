import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { AssetHashType, DockerImage, type Stack } from "aws-cdk-lib";
import { Architecture, Code, LayerVersion, Runtime } from "aws-cdk-lib/aws-lambda";

/** The unpacked browser, with the SwiftShader libraries next to it as @sparticuz/chromium lays them out in /tmp. */
export const CHROMIUM_LAYER_DIR = "chromium";
export const CHROMIUM_PATH = `/opt/${CHROMIUM_LAYER_DIR}/chromium`;

const LAYER_ID = "RenderChromium";
/** Bump when the layout below changes, so a cached asset of the old layout is not reused. */
const LAYOUT_VERSION = 1;

/** @sparticuz/chromium's `bin` folder: the brotli'd binary and tarballs it inflates at run time. */
function sparticuzBin(): { dir: string; version: string } {
  // The package exports only its entry (build/cjs/index.cjs for require): its root is two up.
  const root = join(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "../..");
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  return { dir: join(root, "bin"), version };
}

/**
 * Chromium of @sparticuz/chromium already inflated, as one Lambda layer shared by the
 * chromium functions: nothing is decompressed when a container starts (that took 1.5 s and
 * more of every cold start). Layout under /opt: `chromium/chromium` (CHROMIUM_PATH) with
 * the SwiftShader libraries beside it, and the Amazon Linux 2023 libraries Chromium needs
 * in `lib/`, which is on the Lambda runtime's default LD_LIBRARY_PATH (/opt/lib).
 * @sparticuz/chromium's own fonts are left out: the font layer provides the renderer's.
 * Built in-process at synth (no Docker); the asset hash is the package version, so a
 * cdk.out that has it does not inflate it again.
 */
export function chromiumLayer(scope: Stack): LayerVersion {
  const existing = scope.node.tryFindChild(LAYER_ID);
  if (existing instanceof LayerVersion) return existing;
  const bin = sparticuzBin();
  return new LayerVersion(scope, LAYER_ID, {
    description: `Platen render Chromium: @sparticuz/chromium ${bin.version}, unpacked`,
    compatibleRuntimes: [Runtime.NODEJS_22_X],
    compatibleArchitectures: [Architecture.X86_64],
    code: Code.fromAsset(bin.dir, {
      assetHash: `sparticuz-chromium-${bin.version}-layout-${LAYOUT_VERSION}`,
      assetHashType: AssetHashType.CUSTOM,
      bundling: {
        // Required by the type, never pulled: local bundling always succeeds.
        image: DockerImage.fromRegistry("public.ecr.aws/docker/library/alpine:3"),
        local: {
          tryBundle(outputDir: string): boolean {
            unpackChromium(bin.dir, outputDir);
            return true;
          },
        },
      },
    }),
  });
}

/** Synchronous (CDK's local bundling is): brotli in memory, tarballs through the system `tar`. */
function unpackChromium(binDir: string, outputDir: string): void {
  const browserDir = join(outputDir, CHROMIUM_LAYER_DIR);
  mkdirSync(browserDir, { recursive: true });
  writeFileSync(join(browserDir, "chromium"), brotliDecompressSync(readFileSync(join(binDir, "chromium.br"))), {
    mode: 0o755,
  });
  const untar = (archive: string, into: string) =>
    execFileSync("tar", ["-x", "-C", into], {
      input: brotliDecompressSync(readFileSync(join(binDir, archive))),
      maxBuffer: 2 ** 30,
    });
  untar("swiftshader.tar.br", browserDir);
  untar("al2023.tar.br", outputDir); // → lib/
}
