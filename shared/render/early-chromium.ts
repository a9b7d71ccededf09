import type { Browser } from "puppeteer-core";
import { type Environment, environment } from "#shared/config/settings.ts";
import { browserEnv, connectChromium, hasExited, type SpawnedChromium, spawnChromium } from "./chromium-launch.ts";
import { prepareFontEnvSync } from "./font-config.ts";
import { readRenderConfig } from "./render-config.ts";

let early: SpawnedChromium | undefined;

/**
 * Spawns the first Chromium synchronously, while the rest of the handler's module graph
 * is still being evaluated (a Lambda init phase spends hundreds of ms there): the browser
 * boots in its own process meanwhile, and the renderer connects puppeteer to it later
 * ({@link takeEarlyChromium}). Same binary, command line, environment and fonts as every
 * browser `launchChromium` starts. Only with RENDER_LAUNCH_AT_INIT and an unpacked binary
 * (CHROMIUM_PATH): inflating one would block the whole init.
 * @returns whether a browser was started.
 */
export function spawnChromiumAtInit(env: Environment = environment()): boolean {
  const config = readRenderConfig(env);
  if (!config.launchAtInit || !config.chromiumPath || early) return false;
  early = spawnChromium(config.chromiumPath, browserEnv(prepareFontEnvSync(config.fontDir), env));
  return true;
}

/**
 * The browser spawned at init, connected (once; later calls return undefined so the pool
 * launches the rest itself). One that already died is not connected to: the pool launches.
 */
export function takeEarlyChromium(protocolTimeoutMs: number): Promise<Browser> | undefined {
  const taken = early;
  early = undefined;
  if (!taken) return undefined;
  if (hasExited(taken.process)) return undefined;
  return connectChromium(taken, protocolTimeoutMs);
}
