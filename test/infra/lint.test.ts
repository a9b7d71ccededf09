import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = resolve(import.meta.dirname, "../..");

/** Runs a command from the repository root: its exit code and everything it printed. */
function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/**
 * `npm run lint` as part of `npm test`: the types of the whole project (tsc) and biome's format and
 * lint rules. A test file rather than a step before vitest, so that tsc (one core for half a minute)
 * runs beside the other test worker instead of before every test.
 */
describe("npm run lint", () => {
  it("tsc --noEmit finds no type error", async () => {
    const { code, output } = await run(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit"]);
    expect(output).toBe("");
    expect(code).toBe(0);
  }, 600_000);

  it("biome check . finds nothing to format or fix", async () => {
    const { code, output } = await run("node_modules/.bin/biome", ["check", "."]);
    expect(code, output).toBe(0);
  }, 600_000);
});
