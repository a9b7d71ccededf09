import { once } from "node:events";
import type { Browser, CDPSession, Page } from "puppeteer-core";
import { browserProcess, hasExited } from "./chromium-launch.ts";
import { type GuardedPage, guardPage } from "./page-guard.ts";
import { publishRenderEvent, renderEventsWatched } from "./render-events.ts";

/** A launched browser with its one reusable, locked-down page. */
export interface LiveBrowser {
  browser: Browser;
  guarded: GuardedPage;
}

export type LaunchBrowser = () => Promise<LiveBrowser>;

/** How long a background close may take before the process is killed instead. */
const CLOSE_GRACE_MS = 5_000;
/** A collection takes ~15–20 ms; a browser that does not finish one in this time is killed. */
const GC_GRACE_MS = 5_000;

/**
 * One place in the pool: a browser that is relaunched when it dies, retired and relaunched
 * in the background when it has served enough renders, and killed outright on a time-out.
 * The pool leases a slot to one render at a time.
 */
export class BrowserSlot {
  /** Renders served by the current browser. */
  renders = 0;
  #live?: LiveBrowser;
  #starting?: Promise<LiveBrowser>;
  /** A retired browser still closing: the background relaunch waits for it to be gone. */
  #retiring?: { browser: Browser; closed: Promise<void> };
  #closed = false;

  constructor(private readonly launch: LaunchBrowser) {}

  /** True while the current browser is connected and its page open. */
  get alive(): boolean {
    const live = this.#live;
    return !!live && live.browser.connected && !live.guarded.page.isClosed();
  }

  /** The page to render with, relaunching a dead or retired one first. */
  async ready(): Promise<GuardedPage> {
    if (this.alive && this.#live) return this.#live.guarded;
    this.kill();
    // A render cannot wait for a graceful close: the retired browser is idle, so it goes now.
    if (this.#retiring) killBrowser(this.#retiring.browser);
    return (await this.#start()).guarded;
  }

  /** Starts a relaunch in the background, e.g. right after a kill. */
  warm(): void {
    if (!this.alive && !this.#closed && !this.#retiring) this.#start().catch(() => {});
  }

  /**
   * Retires a browser that has served enough renders: closes it (it is idle, the pool calls
   * this on release) and launches its replacement in the background. Never two browsers for
   * one slot, so memory does not peak at a recycle (a Lambda's limit counts every Chromium).
   */
  recycle(): void {
    const old = this.#live;
    if (this.#closed || !old) return;
    this.#live = undefined;
    // Off the request path; a render that needs this slot meanwhile kills it and launches at once.
    const retiring = { browser: old.browser, closed: closeBrowser(old.browser) };
    this.#retiring = retiring;
    void retiring.closed.finally(() => {
      if (this.#retiring === retiring) this.#retiring = undefined;
      this.warm();
    });
  }

  /**
   * A full garbage collection in the browser (its one process holds the page's renderer),
   * which frees the DOM of the documents its page replaced. Never throws: a browser that
   * fails or hangs is killed, and the next render relaunches it.
   */
  async collectGarbage(): Promise<void> {
    const live = this.#live;
    if (!live || !this.alive) return;
    let timer: NodeJS.Timeout | undefined;
    const { cdp } = live.guarded;
    const nodes = async () => (renderEventsWatched() ? (await cdp.send("Memory.getDOMCounters")).nodes : 0);
    try {
      const nodesBefore = await nodes();
      const started = performance.now();
      await Promise.race([
        cdp.send("HeapProfiler.collectGarbage"),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("garbage collection timed out")), GC_GRACE_MS);
        }),
      ]);
      const ms = performance.now() - started;
      publishRenderEvent({ event: "garbage-collected", ms, nodesBefore, nodesAfter: await nodes() });
    } catch {
      if (this.#live === live) this.kill();
    } finally {
      clearTimeout(timer);
    }
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
    const live = this.#live;
    this.#live = undefined;
    await Promise.all([live ? closeBrowser(live.browser) : undefined, this.#retiring?.closed]);
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
}

/** Opens a browser's first page and locks it down; kills the browser if that fails. */
export async function openGuardedBrowser(launch: () => Promise<Browser>): Promise<LiveBrowser> {
  const browser = await launch();
  // A killed or crashed browser resets its DevTools pipe; once puppeteer has detached
  // its listeners that ECONNRESET would be an uncaught exception taking the process down.
  for (const stream of browserProcess(browser)?.stdio ?? []) stream?.on("error", () => {});
  try {
    const { page, cdp } = await openPrintPage(browser);
    return { browser, guarded: await guardPage(page, cdp) };
  } catch (error) {
    killBrowser(browser);
    throw error;
  }
}

/** Numbers the print pages' URLs, by which each one's target is found. */
let printPages = 0;

/**
 * The page every PDF is printed on: a target whose frames only DevTools may begin (headless
 * shell's BeginFrameControl). Chromium then never paints and composites the documents for a
 * screen nobody looks at; printing lays out and paints on its own path. ~6 ms less Chromium CPU
 * per invoice (~14 %), the same PDF (shared/render/README.md "The print page"). Screenshots need
 * frames: thumbnails are taken on a page of their own (renderer.ts).
 *
 * The launch's own blank page is closed unopened (one renderer less in memory): puppeteer never
 * builds a `Page` for it, whose set-up (a dozen DevTools round trips, each needing a turn of this
 * process's event loop) would otherwise run before the print page's. In a cold start that set-up
 * competes with the first request's templating, which holds the event loop for tens of ms.
 */
async function openPrintPage(browser: Browser): Promise<{ page: Page; cdp: Promise<CDPSession> }> {
  const url = `about:blank#print-${++printPages}`;
  const found = browser.waitForTarget((target) => target.url() === url, { timeout: 30_000 });
  // If the target is never created, its wait must not end as an unhandled rejection later.
  found.catch(() => undefined);
  const session = await browser.target().createCDPSession();
  let closing: Promise<unknown> = Promise.resolve();
  try {
    // In this order on the one session: the pages listed are those from before the print page.
    const [{ targetInfos }] = await Promise.all([
      session.send("Target.getTargets"),
      session.send("Target.createTarget", { url, enableBeginFrameControl: true }),
    ]);
    closing = Promise.all(
      targetInfos
        .filter((info) => info.type === "page" && info.url !== url)
        .map((info) => session.send("Target.closeTarget", { targetId: info.targetId }).catch(() => undefined)),
    );
  } finally {
    void closing.finally(() => session.detach().catch(() => undefined));
  }
  const target = await found;
  // The renderer's own session on the page opens beside puppeteer's set-up of it.
  const cdp = target.createCDPSession();
  cdp.catch(() => undefined); // awaited by guardPage; a page that fails first reports that
  const page = await target.page();
  if (!page) throw new Error("the print page has no page");
  return { page, cdp };
}

/** SIGKILL; puppeteer sees the pipe close and marks the browser disconnected by itself. */
function killBrowser(browser: Browser): void {
  browserProcess(browser)?.kill("SIGKILL");
}

/**
 * Asks the browser to close and waits for its process to be gone (the DevTools connection
 * ends a little before the process does), so a relaunch after a recycle never overlaps it.
 * Killed if it takes longer than {@link CLOSE_GRACE_MS}.
 */
async function closeBrowser(browser: Browser): Promise<void> {
  const child = browserProcess(browser);
  // (`once` also rejects on the process's `error` event: gone all the same.)
  const exited = !child || hasExited(child) ? Promise.resolve() : once(child, "exit").catch(() => undefined);
  const timer = setTimeout(() => killBrowser(browser), CLOSE_GRACE_MS);
  try {
    await browser.close();
  } catch {
    killBrowser(browser);
  }
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
