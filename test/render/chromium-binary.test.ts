import { execFile, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  linkSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inflatedLayout, writeMark } from "#shared/render/chromium-binary.ts";

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

/** The size of a complete binary (the first case inflates one). */
let wholeSize = 0;

/**
 * One real inflation into a fresh folder, made when a case first needs a finished layout
 * and kept for the file: inflating from the shipped archives costs seconds of CPU, and the
 * cases that start from a finished layout (to damage it, or to find it marked) need not pay
 * for one each.
 */
let inflatedOnce: Promise<string> | undefined;
const inflated = (): Promise<string> => {
  inflatedOnce ??= (async () => {
    const tmp = freshTmp();
    await resolveIn(tmp);
    return tmp;
  })();
  return inflatedOnce;
};

/**
 * A fresh temp folder holding the finished layout: its files hard-linked to the one
 * inflation's, the mark copied. The resolver only ever renames files into place and the
 * cases only unlink them, so the shared files are never written through a link; the mark,
 * which a case overwrites, is a copy of its own.
 */
async function inflatedCopy(): Promise<string> {
  const from = await inflated();
  const tmp = freshTmp();
  const layout = inflatedLayout(from)!;
  for (const file of layout) {
    mkdirSync(dirname(join(tmp, file.path)), { recursive: true });
    linkSync(join(from, file.path), join(tmp, file.path));
  }
  copyFileSync(join(from, "platen-chromium.inflated"), join(tmp, "platen-chromium.inflated"));
  expect(inflatedLayout(tmp)).toEqual(layout);
  return tmp;
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
    wholeSize = statSync(path).size;
    expect(wholeSize).toBeGreaterThan(50_000_000);
    expect(existsSync(join(tmp, "platen-chromium-inflate.lock"))).toBe(false);
    expect(existsSync(join(tmp, "platen-chromium.inflated"))).toBe(true);
  }, 90_000);

  it("needs no lock once inflated: a live holder's lock does not delay a process", async () => {
    const tmp = await inflatedCopy();
    // A lock held by a live process (this one) that never lets go.
    symlinkSync(String(process.pid), join(tmp, "platen-chromium-inflate.lock"));
    const { path, ms } = await resolveIn(tmp);
    expect(path).toBe(join(tmp, "chromium"));
    // A wait for the lock would last until it turns stale (STALE_LOCK_MS, 120 s): half of that is a
    // bound no busy machine reaches by reading the mark; the lock is left as it was.
    expect(ms).toBeLessThan(60_000);
    expect(readlinkSync(join(tmp, "platen-chromium-inflate.lock"))).toBe(String(process.pid));
  }, 90_000);

  it("four processes at once after a holder died half-way: each gets the whole binary, nothing of the inflation is left", async () => {
    const tmp = freshTmp();
    symlinkSync(String(deadPid()), join(tmp, "platen-chromium-inflate.lock"));
    writeFileSync(join(tmp, "chromium"), "half a binary");
    const results = await Promise.all([1, 2, 3, 4].map(() => resolveIn(tmp)));
    expect(new Set(results.map((r) => r.path))).toEqual(new Set([join(tmp, "chromium")]));
    expect(statSync(join(tmp, "chromium")).size).toBe(wholeSize);
    expect(spawnSync(join(tmp, "chromium"), ["--version"], { encoding: "utf8" }).stdout).toMatch(/Chrom/);
    // No staging folder, lock or half file left (tsx's compile cache is the test's own child processes').
    const left = readdirSync(tmp).filter((entry) => !/^tsx-\d+$/.test(entry));
    expect(left.sort()).toEqual([...LAYOUT, "fonts", "platen-chromium.inflated"].sort());
  }, 90_000);
});

/** What @sparticuz/chromium unpacks beside its binary on this platform (not Amazon Linux 2023). */
const LAYOUT = [
  "chromium",
  "libEGL.so",
  "libGLESv2.so",
  "libvk_swiftshader.so",
  "libvulkan.so.1",
  "vk_swiftshader_icd.json",
];

describe("the whole layout, not only the binary", () => {
  it("the mark lists every file of the layout, each in place with its size", async () => {
    const tmp = await inflated();
    const layout = inflatedLayout(tmp)!;
    expect(layout.map((f) => f.path)).toEqual(expect.arrayContaining(LAYOUT));
    expect(layout.some((f) => f.path.startsWith("fonts/"))).toBe(true);
    for (const file of layout) expect(statSync(join(tmp, file.path)).size).toBe(file.size);
  }, 90_000);

  it("a binary without its libraries (a mark from before the layout was listed) is inflated again", async () => {
    const tmp = await inflatedCopy();
    for (const lib of LAYOUT.slice(1)) unlinkSync(join(tmp, lib));
    writeFileSync(join(tmp, "platen-chromium.inflated"), `${join(tmp, "chromium")}\n`); // the old mark: the path only
    expect(inflatedLayout(tmp)).toBeUndefined();
    await resolveIn(tmp);
    for (const file of LAYOUT) expect(existsSync(join(tmp, file)), file).toBe(true);
    expect(inflatedLayout(tmp)).toBeDefined();
  }, 90_000);

  it.each(["libEGL.so", "libvulkan.so.1", "vk_swiftshader_icd.json"])(
    "a marked layout missing %s is not used: the next process inflates again",
    async (missing) => {
      const tmp = await inflatedCopy();
      unlinkSync(join(tmp, missing));
      expect(inflatedLayout(tmp), "a missing file voids the mark").toBeUndefined();
      await resolveIn(tmp);
      expect(existsSync(join(tmp, missing))).toBe(true);
      expect(inflatedLayout(tmp)).toBeDefined();
    },
    90_000,
  );

  it("a staging folder left by a holder killed mid-inflation is removed by the next inflation", async () => {
    const tmp = freshTmp();
    symlinkSync(String(deadPid()), join(tmp, "platen-chromium-inflate.lock"));
    mkdirSync(join(tmp, "platen-chromium-staging-dead01"));
    writeFileSync(join(tmp, "platen-chromium-staging-dead01", "chromium"), "half a binary");
    await resolveIn(tmp);
    expect(readdirSync(tmp).filter((e) => e.startsWith("platen-chromium-staging-"))).toEqual([]);
    expect(inflatedLayout(tmp)).toBeDefined();
  }, 90_000);

  it("a staging folder of a live process is left alone; a take-over mark left by a killed breaker does not block", async () => {
    const tmp = freshTmp();
    symlinkSync(String(deadPid()), join(tmp, "platen-chromium-inflate.lock"));
    const live = join(tmp, `platen-chromium-staging-${process.pid}-live01`); // this test process is alive
    mkdirSync(live);
    symlinkSync(String(deadPid()), join(tmp, "platen-chromium-inflate.takeover"));
    const old = new Date(Date.now() - 60_000);
    lutimesSync(join(tmp, "platen-chromium-inflate.takeover"), old, old);
    const { ms } = await resolveIn(tmp);
    expect(ms).toBeLessThan(30_000);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(join(tmp, "platen-chromium-inflate.takeover"))).toBe(false);
    expect(inflatedLayout(tmp)).toBeDefined();
  }, 90_000);

  it("the mark is never written while a file of the layout is missing or partial", async () => {
    const tmp = freshTmp();
    writeFileSync(join(tmp, "chromium"), "binary");
    writeFileSync(join(tmp, "libEGL.so"), "lib");
    const files = [
      { path: "chromium", size: 6 },
      { path: "libEGL.so", size: 3 },
      { path: "libGLESv2.so", size: 3 },
    ];
    await expect(writeMark(tmp, files)).rejects.toThrow(/libGLESv2\.so is missing/);
    expect(existsSync(join(tmp, "platen-chromium.inflated"))).toBe(false);
    writeFileSync(join(tmp, "libGLESv2.so"), "l"); // partial: smaller than listed
    await expect(writeMark(tmp, files)).rejects.toThrow(/libGLESv2\.so is missing or partial/);
    expect(existsSync(join(tmp, "platen-chromium.inflated"))).toBe(false);
    writeFileSync(join(tmp, "libGLESv2.so"), "lib");
    await writeMark(tmp, files);
    expect(inflatedLayout(tmp)).toEqual(files);
  });
});
