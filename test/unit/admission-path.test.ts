import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { routes } from "#shared/definitions/routes.ts";

/**
 * One admission path (shared/http/README.md#admission): a request is counted toward a rate class
 * in one place (`countRate`), a token or a login session is resolved in one place (`callers.ts`),
 * and every route that allows a session is built by the one factory (`grantedHandler`, through
 * `managementHandler` or `designHandler`).
 */
const root = path.resolve(import.meta.dirname, "../..");

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory() && entry.name !== "generated") sources(rel, out);
    else if (entry.name.endsWith(".ts")) out.push(rel);
  }
  return out;
}
const code = ["shared", "functions", "infra"].flatMap((d) => sources(d));
/** Files that call `name(` (its definition aside). */
const callersOf = (name: string) =>
  code.filter((file) => new RegExp(`(?<!function )\\b${name}\\(`).test(readFileSync(path.join(root, file), "utf8")));

describe("one admission path", () => {
  it("counts a request toward a rate class only in countRate (shared/http/admit.ts)", () => {
    expect(callersOf("checkRateLimit")).toEqual(["shared/http/admit.ts"]);
  });

  it("resolves a token or a login session only in the admission's strategy (shared/http/callers.ts)", () => {
    expect(callersOf("resolveManagementCaller")).toEqual(["shared/http/callers.ts"]);
    expect(callersOf("tokenOrSession")).toEqual(["shared/http/middleware/admission.ts"]);
  });

  it("builds every function of a bearer-or-session route with managementHandler or designHandler", () => {
    const sessionFunctions = [...new Set(routes.filter((r) => r.auth === "bearer-or-session").map((r) => r.function))];
    expect(sessionFunctions.length).toBeGreaterThan(5);
    for (const fn of sessionFunctions) {
      const text = readFileSync(path.join(root, "functions/api", `${fn}.ts`), "utf8");
      expect(text, fn).toMatch(/\b(managementHandler|designHandler)\(/);
    }
  });

  it("answers grantedHandler only through those two factories", () => {
    expect(callersOf("grantedHandler").sort()).toEqual([
      "shared/http/design-handler.ts",
      "shared/http/management-handler.ts",
    ]);
  });
});
