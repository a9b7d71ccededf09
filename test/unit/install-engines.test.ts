import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import semver from "semver";
import { expect, it } from "vitest";

/**
 * `npm ci` on the oldest Node the README promises prints no EBADENGINE
 * warning. Every package the lockfile installs must accept that version (an `overrides`
 * pin in package.json keeps cookie@1 under fauxqs → fastify → light-my-request).
 */
const root = resolve(import.meta.dirname, "../..");
const readJson = (name: string) => JSON.parse(readFileSync(resolve(root, name), "utf8"));

it("installs only packages whose engines accept the oldest supported Node", () => {
  const oldest = semver.minVersion(readJson("package.json").engines.node)!.version;
  expect(oldest).toBe("20.19.0");
  const packages = readJson("package-lock.json").packages as Record<
    string,
    { version?: string; engines?: { node?: string } | string[] }
  >;
  const refusing = Object.entries(packages)
    .filter(([, p]) => typeof p.engines === "object" && !Array.isArray(p.engines) && p.engines.node)
    .filter(([, p]) => !semver.satisfies(oldest, (p.engines as { node: string }).node))
    .map(([path, p]) => `${path}@${p.version} needs node ${(p.engines as { node: string }).node}`);
  expect(refusing).toEqual([]);
});
