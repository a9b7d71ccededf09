import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rm } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import puppeteer, { type Browser } from "puppeteer-core";
import { type Environment, environment } from "#shared/aws/config.ts";
import { chromiumArgs, registerBrowserProcess } from "./chromium-launch.ts";
import { prepareFontEnvSync } from "./font-config.ts";
import { DevToolsPipe } from "./pipe-transport.ts";
import { readRenderConfig } from "./render-config.ts";

/** A Chromium process started before puppeteer is asked for a browser. */
interface EarlyChromium {
  process: ChildProcess;
  transport: DevToolsPipe;
}

let early: EarlyChromium | undefined;

/**
 * Spawns the first Chromium synchronously, while the rest of the handler's module graph
 * is still being evaluated (a Lambda init phase spends hundreds of ms there): the browser
 * boots in its own process meanwhile, and the renderer connects puppeteer to it later
 * ({@link takeEarlyChromium}). Same binary, flags and fonts as `launchChromium`, which
 * builds the same command line through puppeteer.launch. Only with RENDER_LAUNCH_AT_INIT
 * and an unpacked binary (CHROMIUM_PATH): inflating one would block the whole init.
 * @returns whether a browser was started.
 */
export function spawnChromiumAtInit(env: Environment = environment()): boolean {
  const config = readRenderConfig(env);
  if (!config.launchAtInit || !config.chromiumPath || early) return false;
  const userDataDir = mkdtempSync(join(tmpdir(), "platen-chromium-profile-"));
  const args = puppeteer.defaultArgs({
    headless: "shell",
    args: [...chromiumArgs(), "--remote-debugging-pipe", `--user-data-dir=${userDataDir}`],
  });
  const child = spawn(config.chromiumPath, args, {
    env: { ...env, ...prepareFontEnvSync(config.fontDir) },
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
  });
  child.once("exit", () => rm(userDataDir, { recursive: true, force: true }, () => {}));
  // A browser that dies before anyone connects must not take the process down.
  child.once("error", () => {});
  const [, , , toBrowser, fromBrowser] = child.stdio;
  for (const stream of [toBrowser, fromBrowser]) stream?.on("error", () => {});
  early = { process: child, transport: new DevToolsPipe(toBrowser as Writable, fromBrowser as Readable) };
  return true;
}

/**
 * The browser spawned at init, connected (once; later calls return undefined so the pool
 * launches the rest itself). The browser's process is registered for the pool's kill.
 */
export function takeEarlyChromium(protocolTimeoutMs: number): Promise<Browser> | undefined {
  const taken = early;
  early = undefined;
  if (!taken) return undefined;
  if (taken.process.exitCode !== null || taken.process.signalCode !== null) return undefined;
  return puppeteer.connect({ transport: taken.transport, protocolTimeout: protocolTimeoutMs }).then(
    (browser) => registerBrowserProcess(browser, taken.process),
    (error: unknown) => {
      taken.process.kill("SIGKILL");
      throw error;
    },
  );
}
