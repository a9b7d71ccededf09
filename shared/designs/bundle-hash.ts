import { createHash } from "node:crypto";
import type { DesignBundle } from "./bundle-schema.ts";

/** JSON with object keys sorted at every level: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The content hash of a bundle: design.json as parsed (defaults filled, keys sorted), the
 * template, the style, the e-invoice mapping when there is one, and every asset's bytes by name.
 * Exporting a version and publishing the zip again gives the same hash, whatever zip tool or key
 * order was used.
 */
export function bundleSha256(bundle: DesignBundle): string {
  const hash = createHash("sha256");
  const part = (name: string, bytes: string | Buffer) => {
    const body = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    hash.update(`${name}\n${body.length}\n`);
    hash.update(body);
  };
  part("design.json", canonicalJson(bundle.manifest));
  part("template.liquid", bundle.template);
  part("style.css", bundle.css);
  // Only when present: a bundle without a mapping keeps the hash it had before mappings existed.
  if (bundle.einvoiceMapping !== undefined) part("einvoice.liquid", bundle.einvoiceMapping);
  for (const name of Object.keys(bundle.assets).sort()) part(name, bundle.assets[name]!.body);
  return hash.digest("hex");
}
