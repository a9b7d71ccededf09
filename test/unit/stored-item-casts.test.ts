import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Stores decode what they read with their zod schema (shared/aws/stored-item.ts), so a stored item
 * is never cast to its type. This reads every file of shared/ that talks to DynamoDB (it imports the
 * document client, query-all or conditional-update) and fails on an `as unknown as` in it, comments
 * stripped. Two casts are no stored item and stay: an S3 object's `Body` as a byte stream, and the
 * SDK clients handed to the fault injector (shared/aws/clients.ts). A cast split over lines is not
 * seen: the guard reads lines, as the casts it replaced were written.
 */

const root = resolve(import.meta.dirname, "../..");

const TALKS_TO_DYNAMODB =
  /from\s+["'](?:@aws-sdk\/lib-dynamodb|#shared\/aws\/query-all\.ts|#shared\/aws\/conditional-update\.ts)["']/;
const NOT_AN_ITEM = [/\.Body as unknown as /, /injectFaults\("?\w+"?, [\w.]+ as unknown as /];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "samples" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The `as unknown as` lines of a file (comments stripped), but the casts that are no stored item. */
function itemCasts(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return code
    .split("\n")
    .filter((line) => line.includes("as unknown as") && !NOT_AN_ITEM.some((allowed) => allowed.test(line)))
    .map((line) => line.trim());
}

const stores = sourceFiles(join(root, "shared"))
  .map((path) => ({ file: relative(root, path), source: readFileSync(path, "utf8") }))
  .filter(({ source }) => TALKS_TO_DYNAMODB.test(source));

describe("stored items are decoded, not cast", () => {
  it("finds the stores (the guard reads real files)", () => {
    const files = stores.map((s) => s.file);
    expect(files).toContain("shared/generation/store/file-store.ts");
    expect(files).toContain("shared/webhooks/endpoint-store.ts");
  });

  it("no store casts with `as unknown as`", () => {
    const casts = stores.flatMap(({ file, source }) => itemCasts(source).map((line) => `${file}: ${line}`));
    expect(casts).toEqual([]);
  });

  it("would catch a cast of a stored item", () => {
    expect(itemCasts("  return rest as unknown as StoredEndpoint;")).toHaveLength(1);
    expect(itemCasts("  return { stream: out.Body as unknown as AsyncIterable<Uint8Array> };")).toEqual([]);
  });
});
