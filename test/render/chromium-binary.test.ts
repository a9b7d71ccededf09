import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The inflated Chromium is shared by every process on the machine, so resolving it runs
 * under a cross-process lock. A process killed while it held the lock (a stack SIGKILLed
 * in a test, a Lambda killed at its time-out) once kept every other process waiting for
 * two minutes, and every browser launch in them failed "no browser was ready in time".
 * Each case runs the resolver in a child process whose TMPDIR is a fresh folder.
 */
const repoRoot = resolve(import.meta.dirname, "../..");
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const freshTmp = (): string => {
  const folder = mkdtempSync(join(tmpdir(), "platen-binary-check-"));
  folders.push(folder);
  return folder;
};

/** Resolves the binary in a child process with TMPDIR = `tmp`; the printed path and the time it took. */
function resolveIn(tmp: string): Promise<{ path: string; ms: number }> {
  const script = [
    'import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";',
    "const started = performance.now();",
    "const path = await resolveExecutablePath();",
    "console.log(JSON.stringify({ path, ms: Math.round(performance.now() - started) }));",
  ].join("\n");
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: repoRoot, env: { ...process.env, TMPDIR: tmp, CHROMIUM_PATH: "" } },
      (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : done(JSON.parse(stdout))),
    );
  });
}

/** The pid of a process that has ended. */
const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid!;

describe("the shared Chromium binary", () => {
  it("is taken over at once from a lock whose holder died, and a half-written binary is inflated again", async () => {
    const tmp = freshTmp();
    symlinkSync(String(deadPid()), join(tmp, "platen-chromium-inflate.lock"));
    writeFileSync(join(tmp, "chromium"), "half a binary");

    const { path, ms } = await resolveIn(tmp);
    expect(path).toBe(join(tmp, "chromium"));
    expect(ms).toBeLessThan(30_000); // inflation itself takes seconds; a stale wait took 120 s
    expect(statSync(path).size).toBeGreaterThan(50_000_000);
    expect(existsSync(join(tmp, "platen-chromium-inflate.lock"))).toBe(false);
    expect(existsSync(join(tmp, "platen-chromium.inflated"))).toBe(true);
  }, 90_000);

  it("needs no lock once inflated: a live holder's lock does not delay a process", async () => {
    const tmp = freshTmp();
    await resolveIn(tmp);
    // A lock held by a live process (this one) that never lets go.
    symlinkSync(String(process.pid), join(tmp, "platen-chromium-inflate.lock"));
    const { path, ms } = await resolveIn(tmp);
    expect(path).toBe(join(tmp, "chromium"));
    expect(ms).toBeLessThan(1_000);
  }, 90_000);

  it("two processes resolving at once inflate it once and both get the whole binary", async () => {
    const tmp = freshTmp();
    const [a, b] = await Promise.all([resolveIn(tmp), resolveIn(tmp)]);
    expect(a.path).toBe(b.path);
    const size = statSync(a.path).size;
    expect(size).toBeGreaterThan(50_000_000);
    expect(spawnSync(a.path, ["--version"], { encoding: "utf8" }).stdout).toMatch(/Chrom/);
  }, 90_000);
});
