import type { ChildProcess } from "node:child_process";
import chromium from "@sparticuz/chromium";
import debug from "debug";
import puppeteer, { type Browser } from "puppeteer-core";
import { environment } from "#shared/aws/config.ts";
import { resolveExecutablePath } from "./chromium-binary.ts";
import { publishRenderEvent } from "./render-events.ts";

// puppeteer hands every DevTools message to a fresh `debug` logger even when logging is
// off, and each one asks isatty(stderr) whether to use colours: a syscall per message,
// ~1 ms of the Node thread per render. Deciding colours once removes it (puppeteer has
// already loaded `debug` by now, so its options object is set, not DEBUG_COLORS). A static
// import is the one instance puppeteer uses under Node and inside an esbuild bundle alike;
// resolving puppeteer-core's path at run time failed in the deployed bundle, which ships
// no puppeteer-core folder.
if (debug.inspectOpts && !("colors" in debug.inspectOpts)) debug.inspectOpts.colors = false;

/**
 * Flags of @sparticuz/chromium we drop: they switch off the same-origin policy and
 * mixed-content blocking, which only make sense for scraping, not for untrusted templates.
 */
const INSECURE_FLAGS = new Set(["--disable-web-security", "--allow-running-insecure-content"]);

/**
 * Added flags. The dead proxy (discard port, nothing listens) catches any request that
 * slips past interception; `<-loopback>` removes Chromium's implicit loopback bypass so
 * 127.0.0.1 and the Lambda Runtime API go to the dead proxy too.
 */
const LOCKDOWN_FLAGS = [
  "--proxy-server=http://127.0.0.1:9",
  "--proxy-bypass-list=<-loopback>",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-domain-reliability",
  "--disable-sync",
  "--no-pings",
  "--dns-prefetch-disable",
  "--disable-features=NetworkPrediction,InterestFeedContentSuggestions,MediaRouter,DialMediaRouteProvider",
];

/** chromium.args minus the insecure flags, plus the network lockdown. */
export function chromiumArgs(): string[] {
  // No WebGL: templates run no script, so SwiftShader would only cost start-up time.
  chromium.setGraphicsMode = false;
  return [...chromium.args.filter((flag) => !INSECURE_FLAGS.has(flag)), ...LOCKDOWN_FLAGS];
}

export interface LaunchOptions {
  chromiumPath?: string;
  /** FONTCONFIG_FILE / FONTCONFIG_PATH for the browser process only. */
  fontEnv: Record<string, string>;
  /** Upper bound of any single DevTools call; per-render deadlines are shorter. */
  protocolTimeoutMs: number;
}

/**
 * What the browser process may see of this process's environment: where its libraries
 * (@sparticuz/chromium sets LD_LIBRARY_PATH on Lambda), home, temp dir and locale are,
 * plus the fonts. Nothing else, so no AWS_* credentials (Lambda puts the function's
 * role keys in the environment) reach a process that runs untrusted templates.
 */
const BROWSER_ENV = [
  "HOME",
  "TMPDIR",
  "LD_LIBRARY_PATH",
  "PATH",
  "LANG",
  "TZ",
  "FONTCONFIG_PATH",
  "FONTCONFIG_FILE",
] as const;

export function browserEnv(fontEnv: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BROWSER_ENV) {
    const value = environment()[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...fontEnv };
}

/**
 * Launches one headless-shell Chromium over a pipe (no DevTools port listening on
 * loopback for anything to find).
 */
export async function launchChromium(options: LaunchOptions): Promise<Browser> {
  const browser = await puppeteer.launch({
    executablePath: await resolveExecutablePath(options.chromiumPath),
    args: chromiumArgs(),
    headless: "shell",
    pipe: true,
    env: browserEnv(options.fontEnv),
    protocolTimeout: options.protocolTimeoutMs,
    // The pool owns the browsers' lifetime; puppeteer's signal hooks would race it.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  publishRenderEvent({ event: "browser-launched" });
  return browser;
}

/** Processes of browsers puppeteer connected to rather than launched (early-chromium.ts). */
const connectedProcesses = new WeakMap<Browser, ChildProcess>();

/** Records the process of a browser puppeteer did not launch, so it can be killed like one it did. */
export function registerBrowserProcess(browser: Browser, child: ChildProcess): Browser {
  connectedProcesses.set(browser, child);
  publishRenderEvent({ event: "browser-launched" });
  return browser;
}

/** The browser's OS process, whether puppeteer launched it or connected to it. */
export function browserProcess(browser: Browser): ChildProcess | undefined {
  return browser.process() ?? connectedProcesses.get(browser);
}
