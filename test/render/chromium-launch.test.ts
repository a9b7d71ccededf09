import puppeteer from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { browserProcess, chromiumArgs, chromiumCommandLine, launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { chromiumChildPids, eventually } from "./render-fixtures.ts";

/** A command line with each feature list as a set (Chromium reads one flag of each kind). */
const normalized = (args: string[]) => {
  const features: Record<string, Set<string>> = { disable: new Set(), enable: new Set() };
  const rest: string[] = [];
  for (const arg of args) {
    const [, kind, list] = /^--(disable|enable)-features=(.*)$/.exec(arg) ?? [];
    if (kind) for (const feature of list!.split(",")) features[kind]!.add(feature);
    else rest.push(arg);
  }
  return { rest, disable: [...features.disable!].sort(), enable: [...features.enable!].sort() };
};

describe("starting Chromium", () => {
  it("uses the command line puppeteer's launcher would build: its defaults for a headless shell, then ours", () => {
    const ours = chromiumCommandLine("/tmp/profile");
    const puppeteers = puppeteer.defaultArgs({
      headless: "shell",
      args: [...chromiumArgs(), "--remote-debugging-pipe", "--user-data-dir=/tmp/profile"],
    });
    expect(normalized(ours)).toEqual(normalized(puppeteers));
    expect(ours.filter((arg) => arg.startsWith("--disable-features="))).toHaveLength(1);
    expect(ours.filter((arg) => arg.startsWith("--enable-features="))).toHaveLength(1);
  });

  it("connects to the browser it spawned, and closing it ends the process", async () => {
    const browser = await launchChromium({ fontEnv: await prepareFontEnv(), protocolTimeoutMs: 30_000 });
    const pid = browserProcess(browser)?.pid;
    expect(chromiumChildPids()).toEqual([pid]);
    expect(await browser.version()).toMatch(/HeadlessChrome/);
    await browser.close();
    expect(await eventually(() => chromiumChildPids().length === 0)).toBe(true);
  }, 60_000);

  it("a binary that cannot start, or exits at once, rejects with why instead of waiting", async () => {
    const options = { fontEnv: {}, protocolTimeoutMs: 30_000 };
    await expect(launchChromium({ ...options, chromiumPath: "/nonexistent/chromium" })).rejects.toThrow(
      /Chromium could not be started: spawn \/nonexistent\/chromium ENOENT/,
    );
    // The pipe closes before the exit is reported, and puppeteer notices first: still the exit's reason.
    for (let i = 0; i < 5; i++)
      await expect(launchChromium({ ...options, chromiumPath: "/bin/false" })).rejects.toThrow(
        /Chromium exited before DevTools connected \(code 1/,
      );
  });
});
