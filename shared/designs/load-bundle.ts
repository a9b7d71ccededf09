import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, relative } from "node:path";
import type { z } from "zod";
import { type DesignBundle, designManifestSchema } from "./bundle-schema.ts";

/** A bundle folder that cannot be published; the message is one line for the CLI. */
export class BundleError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BundleError";
  }
}

const CONTENT_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".webp": "image/webp",
  ".css": "text/css",
};

/** Assets are small images and stylesheets; the whole bundle stays well under Lambda limits. */
const MAX_ASSET_BYTES = 5 * 1024 * 1024;

const describeIssue = (i: z.core.$ZodIssue) =>
  `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`;

/** Reads and validates a design bundle folder (design.json, template.liquid, style.css, assets/). */
export async function loadBundleFromDir(dir: string): Promise<DesignBundle> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new BundleError(`design folder not found: ${dir}`);
  const manifestText = await readText(join(dir, "design.json"), true);
  let raw: unknown;
  try {
    raw = JSON.parse(manifestText.replace(/^\uFEFF/, "")); // editors on Windows may save a BOM
  } catch (cause) {
    throw new BundleError(`design.json is not valid JSON: ${(cause as Error).message.replace(/\s+/g, " ")}`, { cause });
  }
  const parsed = designManifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new BundleError(`invalid design.json: ${parsed.error.issues.slice(0, 3).map(describeIssue).join("; ")}`);
  }
  const template = await readText(join(dir, "template.liquid"), true);
  const css = await readText(join(dir, "style.css"), false);
  return { manifest: parsed.data, template, css, assets: await readAssets(join(dir, "assets")) };
}

async function readText(path: string, required: boolean): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    if (!required) return "";
    throw new BundleError(`missing ${relative(process.cwd(), path) || path}`, { cause });
  }
}

async function readAssets(dir: string): Promise<DesignBundle["assets"]> {
  const assets: DesignBundle["assets"] = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const name = `assets/${relative(dir, full).split("\\").join("/")}`;
    const contentType = CONTENT_TYPES[extname(entry.name).toLowerCase()];
    if (!contentType) throw new BundleError(`unsupported asset type: ${name}`);
    const body = await readFile(full);
    if (body.length > MAX_ASSET_BYTES) throw new BundleError(`asset too large (> 5 MB): ${name}`);
    assets[name] = { contentType, body };
  }
  return assets;
}
