import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import chromium from "@sparticuz/chromium";
import debug from "debug";
import type { Browser } from "puppeteer-core";
import { type Environment, environment } from "#shared/config/settings.ts";
import { resolveExecutablePath } from "./chromium-binary.ts";
import { DevToolsPipe } from "./pipe-transport.ts";
import { connectBrowser } from "./puppeteer.ts";
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

/**
 * The flags puppeteer's launcher gives a headless-shell browser (puppeteer-core's
 * `ChromeLauncher.defaultArgs`), which every browser of the renderer was started with while
 * puppeteer launched them. The renderer starts Chromium itself now (see {@link spawnChromium});
 * test/render/chromium-launch.test.ts compares this command line with the installed
 * puppeteer's, so an upgrade that changes its defaults is seen.
 */
const PUPPETEER_FLAGS = [
  "--allow-pre-commit-input",
  "--disable-background-networking",
  "--disable-background-timer-throttling",
  "--disable-backgrounding-occluded-windows",
  "--disable-breakpad",
  "--disable-client-side-phishing-detection",
  "--disable-component-extensions-with-background-pages",
  "--disable-crash-reporter",
  "--disable-default-apps",
  "--disable-dev-shm-usage",
  "--disable-hang-monitor",
  "--disable-infobars",
  "--disable-ipc-flooding-protection",
  "--disable-popup-blocking",
  "--disable-prompt-on-repost",
  "--disable-renderer-backgrounding",
  "--disable-search-engine-choice-screen",
  "--disable-sync",
  "--enable-automation",
  "--export-tagged-pdf",
  "--force-color-profile=srgb",
  "--generate-pdf-document-outline",
  "--metrics-recording-only",
  "--no-first-run",
  "--password-store=basic",
  "--use-mock-keychain",
  "--headless",
  "--hide-scrollbars",
  "--mute-audio",
  "--disable-extensions",
];
const PUPPETEER_FEATURES = {
  disable: [
    "Translate",
    "AcceptCHFrame",
    "MediaRouter",
    "OptimizationHints",
    "RenderDocument",
    "ProcessPerSiteUpToMainFrameThreshold",
    "IsolateSandboxedIframes",
  ],
  enable: ["PdfOopif"],
};

/**
 * The whole command line after the binary: puppeteer's defaults, then {@link chromiumArgs},
 * with every `--disable-features` / `--enable-features` list merged into one flag each (as
 * puppeteer merges them: Chromium only reads the last of each), DevTools over the pipe and
 * the profile folder.
 */
export function chromiumCommandLine(userDataDir: string): string[] {
  const features = { disable: [...PUPPETEER_FEATURES.disable], enable: [...PUPPETEER_FEATURES.enable] };
  const rest: string[] = [];
  for (const flag of chromiumArgs()) {
    const [, kind, list] = /^--(disable|enable)-features=(.*)$/.exec(flag) ?? [];
    if (kind === "disable" || kind === "enable") features[kind].push(...list!.split(",").filter(Boolean));
    else rest.push(flag);
  }
  return [
    ...PUPPETEER_FLAGS,
    `--disable-features=${[...new Set(features.disable)].join(",")}`,
    `--enable-features=${[...new Set(features.enable)].join(",")}`,
    "about:blank",
    ...rest,
    "--remote-debugging-pipe",
    `--user-data-dir=${userDataDir}`,
  ];
}

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

export function browserEnv(fontEnv: Record<string, string>, from: Environment = environment()): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BROWSER_ENV) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...fontEnv };
}

/** Browsers started and not yet exited, with their profile folders. */
const running = new Map<ChildProcess, string>();
let exitHooked = false;

/**
 * When this process exits with browsers still running (a stop that did not wait for them, an
 * uncaught error), they are killed and their profile folders removed, synchronously: an
 * exiting process runs no more callbacks. A browser would exit by itself when its DevTools
 * pipe closes, but its profile would stay in the temp folder.
 */
function hookProcessExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const [child, userDataDir] of running) {
      child.kill("SIGKILL");
      rmSync(userDataDir, { recursive: true, force: true });
    }
  });
}

/** A Chromium process started with DevTools on a pipe, not yet connected to. */
export interface SpawnedChromium {
  process: ChildProcess;
  transport: DevToolsPipe;
}

/**
 * Starts one headless-shell Chromium with DevTools over a pipe (no port listening on
 * loopback for anything to find), synchronously: a cold start spawns it while the rest of
 * the handler's modules load (early-chromium.ts). Its profile folder goes when it exits.
 * @param executablePath an unpacked binary (resolveExecutablePath)
 * @param env the environment the browser may see ({@link browserEnv})
 */
export function spawnChromium(executablePath: string, env: Record<string, string>): SpawnedChromium {
  const userDataDir = mkdtempSync(join(tmpdir(), "platen-chromium-profile-"));
  const child = spawn(executablePath, chromiumCommandLine(userDataDir), {
    env,
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
  });
  running.set(child, userDataDir);
  hookProcessExit();
  child.once("exit", () => {
    running.delete(child);
    rmSync(userDataDir, { recursive: true, force: true });
  });
  // A browser that dies before anyone connects must not take the process down; the
  // connection sees it (connectChromium).
  child.on("error", () => {});
  const [, , , toBrowser, fromBrowser] = child.stdio;
  for (const stream of [toBrowser, fromBrowser]) stream?.on("error", () => {});
  return { process: child, transport: new DevToolsPipe(toBrowser as Writable, fromBrowser as Readable) };
}

/**
 * Connects puppeteer to a spawned browser. A browser that cannot start (no binary, a crash
 * at start) rejects with why instead of leaving the connection waiting; one that fails to
 * connect is killed.
 */
export async function connectChromium(spawned: SpawnedChromium, protocolTimeoutMs: number): Promise<Browser> {
  const { process: child, transport } = spawned;
  let reported: Error | undefined;
  let onFailure: (error: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    onFailure = (error) => {
      reported ??= error;
      reject(error);
    };
  });
  const exitError = (code: number | null, signal: string | null) =>
    new Error(`Chromium exited before DevTools connected (code ${code}, signal ${signal})`);
  const onError = (error: Error) => onFailure(new Error(`Chromium could not be started: ${error.message}`));
  const onExit = (code: number | null, signal: string | null) => onFailure(exitError(code, signal));
  child.once("error", onError);
  child.once("exit", onExit);
  if (hasExited(child)) onExit(child.exitCode, child.signalCode);
  try {
    const browser = await Promise.race([connectBrowser(transport, protocolTimeoutMs), failed]);
    connectedProcesses.set(browser, child);
    publishRenderEvent({ event: "browser-launched" });
    return browser;
  } catch (error) {
    // The pipe closes a moment before the exit is reported: a browser that died at start makes
    // puppeteer fail first ("Target closed"), and the exit says why.
    if (child.pid !== undefined && !hasExited(child))
      await Promise.race([once(child, "exit").catch(() => undefined), delay(EXIT_GRACE_MS)]);
    if (hasExited(child) && error !== reported) {
      throw Object.assign(exitError(child.exitCode, child.signalCode), { cause: error });
    }
    child.kill("SIGKILL");
    throw error;
  } finally {
    child.off("error", onError);
    child.off("exit", onExit);
  }
}

/** How long a failed connection waits for the browser's exit to be reported, to say why it failed. */
const EXIT_GRACE_MS = 250;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Starts a browser and connects to it (resolving, and locally inflating, the binary first). */
export async function launchChromium(options: LaunchOptions): Promise<Browser> {
  const executablePath = await resolveExecutablePath(options.chromiumPath);
  return connectChromium(spawnChromium(executablePath, browserEnv(options.fontEnv)), options.protocolTimeoutMs);
}

/** Whether a child process is gone (its exit already reported). */
export const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** The OS process of each connected browser, for the pool's kill. */
const connectedProcesses = new WeakMap<Browser, ChildProcess>();

/** The browser's OS process. */
export function browserProcess(browser: Browser): ChildProcess | undefined {
  return connectedProcesses.get(browser);
}
