import { copyFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DockerImage, type Stack } from "aws-cdk-lib";
import { Architecture, Code, LayerVersion, Runtime } from "aws-cdk-lib/aws-lambda";
import { resolveFontFiles } from "#shared/render/font-config.ts";

/** Layers are mounted under /opt; the renderer reads this folder through RENDER_FONT_DIR. */
export const FONT_LAYER_DIR = "fonts";
export const RENDER_FONT_DIR = `/opt/${FONT_LAYER_DIR}`;

const LAYER_ID = "RenderFonts";

/**
 * The renderer's font files (shared/render/font-config.ts names them; a handful of TTFs out
 * of ~60 MB of font packages) as one Lambda layer shared by every chromium function.
 * Staged in-process, so synth needs no Docker; the asset hash is that of the copied files.
 */
export function renderFontLayer(scope: Stack): LayerVersion {
  const existing = scope.node.tryFindChild(LAYER_ID);
  if (existing instanceof LayerVersion) return existing;
  const fonts = resolveFontFiles();
  // The asset's source folder only matters when bundling is skipped (tests); keep it small.
  const source = fileURLToPath(new URL("../../shared/render/", import.meta.url));
  return new LayerVersion(scope, LAYER_ID, {
    description: `Platen render fonts: ${fonts.map((file) => basename(file)).join(", ")}`,
    compatibleRuntimes: [Runtime.NODEJS_22_X],
    compatibleArchitectures: [Architecture.X86_64],
    code: Code.fromAsset(source, {
      bundling: {
        // Required by the type, never pulled: local bundling always succeeds.
        image: DockerImage.fromRegistry("public.ecr.aws/docker/library/alpine:3"),
        local: {
          tryBundle(outputDir: string): boolean {
            mkdirSync(join(outputDir, FONT_LAYER_DIR), { recursive: true });
            for (const file of fonts) copyFileSync(file, join(outputDir, FONT_LAYER_DIR, basename(file)));
            return true;
          },
        },
      },
    }),
  });
}
