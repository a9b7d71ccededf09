import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";
import { TMP_CHECK_ENV, TMP_CHECKED_FILES } from "../helpers/tmp-checked-files.ts";

/**
 * Test files remove what they create in the temp folder. Other engineers'
 * and test workers' processes share /tmp, so this runs test files that used to leave
 * things (CDK synthesis, a ZIP check, a stack stopped and SIGKILLed) in a child vitest
 * whose TMPDIR is a fresh folder, and looks at that folder afterwards. The suite runs
 * those files only here (helpers/tmp-checked-files.ts): a failure of theirs fails this test,
 * with their output.
 */

const repoRoot = resolve(import.meta.dirname, "../..");
const FILES = TMP_CHECKED_FILES;
/** Caches kept on purpose and reused by the next process: the renderer's fontconfig, tsx's compile cache. */
const KEPT = (entry: string) => entry === "platen-fonts" || /^tsx-\d+$/.test(entry);

const tmp = mkdtempSync(join(tmpdir(), "platen-tmp-check-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

it("leaves nothing new in the temp folder after test files that create temp files", async () => {
  // The inflated Chromium is a cache of the machine, not something a test creates: reuse it.
  const chromium = await resolveExecutablePath();
  const out = await new Promise<{ code: number; output: string }>((done) => {
    const args = [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--config",
      "test/vitest.config.ts",
      "--maxWorkers=1",
      ...FILES,
    ];
    const env = {
      ...process.env,
      [TMP_CHECK_ENV]: "1",
      TMPDIR: tmp,
      CHROMIUM_PATH: chromium,
      NO_COLOR: "1",
      FORCE_COLOR: "0",
    };
    execFile(process.execPath, args, { cwd: repoRoot, env, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
  expect(out.code, out.output).toBe(0);
  expect(out.output).toMatch(new RegExp(`Test Files\\s+${FILES.length} passed`));
  expect(readdirSync(tmp).filter((e) => !KEPT(e))).toEqual([]);
}, 600_000);
