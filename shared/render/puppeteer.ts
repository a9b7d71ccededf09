import fs from "node:fs";
import path from "node:path";
import type { Browser, ConnectionTransport } from "puppeteer-core";
import { Puppeteer } from "puppeteer-core/internal/common/Puppeteer.js";
import { environment } from "puppeteer-core/internal/environment.js";

export { TimeoutError } from "puppeteer-core/internal/common/Errors.js";

/**
 * puppeteer without its launchers. The package's main entry builds a `PuppeteerNode`,
 * whose browser launchers bring @puppeteer/browsers (download, unzip and install code),
 * semver, tar, ws and follow-redirects into every Chromium function's bundle: ~190 KB that a
 * cold start compiled and evaluated for nothing (~30 ms of Node CPU, test/bench/README.md
 * "Cold starts"), since the renderer starts Chromium itself and only connects
 * (chromium-launch.ts). This is the same `Puppeteer.connect`, through the package's own
 * `puppeteer-core/internal/*` exports, with the Node environment its main entry sets up
 * (minus the screen recorder, which renders never use).
 */
environment.value = {
  fs,
  path,
  get ScreenRecorder(): never {
    throw new Error("screen recording is not part of the renderer");
  },
} as unknown as typeof environment.value;

const puppeteer = new Puppeteer({ isPuppeteerCore: true });

/**
 * Attaches puppeteer to a browser over `transport` (a DevTools pipe). The internal module's
 * `Browser` is the class the package's bundled declarations (`lib/types.d.ts`) describe.
 */
export const connectBrowser = (transport: ConnectionTransport, protocolTimeoutMs: number): Promise<Browser> =>
  puppeteer.connect({ transport, protocolTimeout: protocolTimeoutMs }) as Promise<unknown> as Promise<Browser>;
