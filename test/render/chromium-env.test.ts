import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";
import { browserProcess, launchChromium } from "#shared/render/chromium-launch.ts";
import { spawnChromiumAtInit, takeEarlyChromium } from "#shared/render/early-chromium.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";

/**
 * Defence in depth: Lambda puts the function role's keys into the
 * environment; the browser that runs untrusted templates must not inherit them.
 */
const planted = {
  AWS_ACCESS_KEY_ID: "AKIAPLANTEDFORTEST",
  AWS_SECRET_ACCESS_KEY: "planted-secret",
  AWS_SESSION_TOKEN: "planted-token",
  PLATEN_SECRET: "x",
};
const before = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(planted)) {
    if (before[name] === undefined) delete process.env[name];
    else process.env[name] = before[name];
  }
});

/** NAME=value pairs of a running process, from /proc. */
const environOf = (pid: number) =>
  readFileSync(`/proc/${pid}/environ`, "utf8")
    .split("\0")
    .filter(Boolean)
    .map((pair) => pair.slice(0, pair.indexOf("=")));

describe("the browser process's environment", () => {
  it("holds no AWS_* variable and nothing else of the function's environment beyond fonts, HOME, TMPDIR and the library path", async () => {
    Object.assign(process.env, planted);
    const fontEnv = await prepareFontEnv();
    const browser = await launchChromium({ fontEnv, protocolTimeoutMs: 30_000 });
    try {
      const pid = browserProcess(browser)!.pid!;
      const names = environOf(pid);
      expect(names.filter((n) => n.startsWith("AWS_"))).toEqual([]);
      expect(names).not.toContain("PLATEN_SECRET");
      for (const name of Object.keys(fontEnv)) expect(names).toContain(name);
      expect(
        names.every((n) =>
          ["HOME", "TMPDIR", "LD_LIBRARY_PATH", "PATH", "LANG", "TZ", ...Object.keys(fontEnv)].includes(n),
        ),
      ).toBe(true);
      // It still renders (fonts found through the environment it was given).
      const page = await browser.newPage();
      await page.setContent("<p>日本語</p>");
      expect((await page.pdf()).length).toBeGreaterThan(1000);
      await page.close();
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("the browser spawned at init (RENDER_LAUNCH_AT_INIT) gets the same environment: no AWS_* variable", async () => {
    const env = {
      ...process.env,
      ...planted,
      RENDER_LAUNCH_AT_INIT: "1",
      CHROMIUM_PATH: await resolveExecutablePath(),
    };
    expect(spawnChromiumAtInit(env)).toBe(true);
    const browser = await takeEarlyChromium(30_000)!;
    try {
      const names = environOf(browserProcess(browser)!.pid!);
      expect(names.filter((n) => n.startsWith("AWS_"))).toEqual([]);
      expect(names).not.toContain("PLATEN_SECRET");
      expect(names).not.toContain("RENDER_LAUNCH_AT_INIT");
      expect(names).toContain("FONTCONFIG_FILE");
    } finally {
      await browser.close();
    }
  }, 60_000);
});
