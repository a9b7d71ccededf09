import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { escapeHtml } from "#shared/html/html.ts";

/**
 * The fonts every design gets, as npm package paths. TrueType (glyf) files on purpose:
 * Chromium embeds them as small CIDFontType2 subsets. The @fontsource WOFF2 subsets do
 * not work as system fonts (Chromium's FreeType renders nothing from them), and CFF
 * (.otf) fonts risk Type 3 embedding that blows up PDF size.
 */
export const FONT_PACKAGE_FILES = [
  "@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf",
  "@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf",
  "@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf",
  "@expo-google-fonts/noto-sans/400Regular_Italic/NotoSans_400Regular_Italic.ttf",
  "@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf",
  "@expo-google-fonts/noto-sans/700Bold_Italic/NotoSans_700Bold_Italic.ttf",
] as const;

/** Absolute paths of the font files in node_modules (infra copies these into a layer). */
export function resolveFontFiles(): string[] {
  const require = createRequire(import.meta.url);
  return FONT_PACKAGE_FILES.map((file) => require.resolve(file));
}

/**
 * Generic families and every unknown family end at Noto Sans JP, so output never depends
 * on what the host has installed: the config below is the only one Chromium reads.
 * Noto Sans JP covers Latin too; Noto Sans (the Latin face) adds real italics and wider
 * European coverage, and is the fallback for characters Noto Sans JP lacks.
 */
export function buildFontsConf(fontDirs: string[], cacheDir: string): string {
  const preferred = "<prefer><family>Noto Sans JP</family><family>Noto Sans</family></prefer>";
  const alias = (generic: string) => `  <alias binding="same"><family>${generic}</family>${preferred}</alias>`;
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    "<fontconfig>",
    ...fontDirs.map((dir) => `  <dir>${escapeHtml(dir)}</dir>`),
    `  <cachedir>${escapeHtml(cacheDir)}</cachedir>`,
    ...["sans-serif", "serif", "monospace", "system-ui", "cursive", "fantasy"].map(alias),
    '  <match target="pattern"><edit name="family" mode="append_last"><string>Noto Sans JP</string></edit></match>',
    // The fonts never change while the process lives: skip fontconfig's periodic rescans.
    "  <config><rescan><int>0</int></rescan></config>",
    "</fontconfig>",
    "",
  ].join("\n");
}

let prepared: Record<string, string> | undefined;

/**
 * Writes `$TMPDIR/platen-fonts/fonts.conf` once per process and returns the environment
 * that points Chromium's fontconfig at it (what `chromium.font()` and /tmp/fonts did on
 * Lambda, but with our own fonts and the same file locally and on Lambda).
 * @param fontDir a folder holding the files instead of node_modules (RENDER_FONT_DIR).
 */
export function prepareFontEnv(fontDir?: string): Promise<Record<string, string>> {
  try {
    return Promise.resolve(prepareFontEnvSync(fontDir));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * {@link prepareFontEnv} without a promise, for a browser spawned while the module graph
 * is still loading (early-chromium.ts). One small file, once per process.
 */
export function prepareFontEnvSync(fontDir?: string): Record<string, string> {
  prepared ??= writeFontsConf(fontDir);
  return prepared;
}

function writeFontsConf(fontDir: string | undefined): Record<string, string> {
  const root = join(tmpdir(), "platen-fonts");
  const cacheDir = join(root, "cache");
  mkdirSync(cacheDir, { recursive: true });
  const dirs = fontDir ? [fontDir] : [...new Set(resolveFontFiles().map((file) => dirname(file)))];
  const file = join(root, "fonts.conf");
  // Write-then-rename: a browser starting in another process never reads half a file.
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, buildFontsConf(dirs, cacheDir));
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true }); // gone after a rename; left only if writing or renaming failed
  }
  return { FONTCONFIG_FILE: file, FONTCONFIG_PATH: root };
}
