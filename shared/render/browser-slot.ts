import type { Browser } from "puppeteer-core";
import { type GuardedPage, guardPage } from "./page-guard.ts";

/** A launched browser with its one reusable, locked-down page. */
export interface LiveBrowser {
  browser: Browser;
  guarded: GuardedPage;
}

export type LaunchBrowser = () => Promise<LiveBrowser>;

/** How long a background close may take before the process is killed instead. */
const CLOSE_GRACE_MS = 5_000;

/**
 * One place in the pool: a browser that is relaunched when it dies, replaced in the
 * background when it has served enough renders, and killed outright on a time-out.
 * The pool leases a slot to one render at a time.
 */
export class BrowserSlot {
  /** Renders served by the current browser. */
  renders = 0;
  #live?: LiveBrowser;
  #starting?: Promise<LiveBrowser>;
  #next?: LiveBrowser;
  #recycling = false;
  #closed = false;

  constructor(private readonly launch: LaunchBrowser) {}

  /** True while the current browser is connected and its page open. */
  get alive(): boolean {
    const live = this.#live;
    return !!live && live.browser.connected && !live.guarded.page.isClosed();
  }

  /** The page to render with, swapping in a recycled browser or relaunching a dead one first. */
  async ready(): Promise<GuardedPage> {
    if (this.#next) this.#swapInNext();
    if (this.alive && this.#live) return this.#live.guarded;
    this.kill();
    return (await this.#start()).guarded;
  }

  /** Starts a relaunch in the background, e.g. right after a kill. */
  warm(): void {
    if (!this.alive && !this.#closed) this.#start().catch(() => {});
  }

  /** Launches a replacement in the background; the next `ready()` swaps it in. */
  recycle(): void {
    if (this.#recycling || this.#next || this.#closed) return;
    this.#recycling = true;
    this.launch()
      .then((fresh) => {
        if (this.#closed) void closeBrowser(fresh.browser);
        else this.#next = fresh;
      })
      .catch(() => {}) // the old browser keeps serving; the next recycle() tries again
      .finally(() => {
        this.#recycling = false;
      });
  }

  /** Kills the current browser process at once (time-out or crash), never waiting. */
  kill(): void {
    const live = this.#live;
    this.#live = undefined;
    if (live) killBrowser(live.browser);
  }

  /** Closes everything this slot owns. */
  async close(): Promise<void> {
    this.#closed = true;
    const browsers = [this.#live, this.#next].flatMap((live) => (live ? [live.browser] : []));
    this.#live = this.#next = undefined;
    await Promise.all(browsers.map(closeBrowser));
  }

  #start(): Promise<LiveBrowser> {
    this.#starting ??= this.launch()
      .then((live) => {
        if (this.#closed) {
          void closeBrowser(live.browser);
          throw new Error("browser pool closed");
        }
        this.#live = live;
        this.renders = 0;
        return live;
      })
      .finally(() => {
        this.#starting = undefined;
      });
    return this.#starting;
  }

  #swapInNext(): void {
    const old = this.#live;
    this.#live = this.#next;
    this.#next = undefined;
    this.renders = 0;
    // Off the request path: closing a browser takes seconds.
    if (old) void closeBrowser(old.browser);
  }
}

/** Opens a browser's first page and locks it down; kills the browser if that fails. */
export async function openGuardedBrowser(launch: () => Promise<Browser>): Promise<LiveBrowser> {
  const browser = await launch();
  // A killed or crashed browser resets its DevTools pipe; once puppeteer has detached
  // its listeners that ECONNRESET would be an uncaught exception taking the process down.
  for (const stream of browser.process()?.stdio ?? []) stream?.on("error", () => {});
  try {
    const [first] = await browser.pages();
    return { browser, guarded: await guardPage(first ?? (await browser.newPage())) };
  } catch (error) {
    killBrowser(browser);
    throw error;
  }
}

/** SIGKILL; puppeteer sees the pipe close and marks the browser disconnected by itself. */
function killBrowser(browser: Browser): void {
  browser.process()?.kill("SIGKILL");
}

async function closeBrowser(browser: Browser): Promise<void> {
  const timer = setTimeout(() => killBrowser(browser), CLOSE_GRACE_MS);
  try {
    await browser.close();
  } catch {
    killBrowser(browser);
  } finally {
    clearTimeout(timer);
  }
}
