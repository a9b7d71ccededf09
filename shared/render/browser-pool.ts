import { TimeoutError } from "./puppeteer.ts";
import { BrowserSlot, type LaunchBrowser } from "./browser-slot.ts";
import { DeadlineExceeded, remainingMs, withDeadline } from "./deadline.ts";
import type { GuardedPage } from "./page-guard.ts";
import { RenderError } from "./render-error.ts";

export interface PoolStats {
  browsers: number;
  busy: number;
  queued: number;
  renders: number;
}

export interface BrowserPoolOptions {
  /** Browsers, each serving one render at a time (single-process Chromium: one core each). */
  size: number;
  /** Renders after which a browser is replaced in the background. */
  recycleAfter: number;
  /**
   * Renders after which a browser's garbage is collected before it takes the next render.
   * Chromium keeps every replaced document's DOM until a major GC, which it defers: a browser
   * printing the sample invoice grew from ~150 to ~420 MB in 175 renders before collecting,
   * and never gave the memory back; collected every 25 renders it stays at ~160–175 MB. The
   * collection (~15–20 ms) runs after the render's result is handed back, while the slot is
   * still leased, so no caller waits for it unless every browser is busy.
   */
  gcEvery: number;
  launch: LaunchBrowser;
}

export interface RunOptions {
  /**
   * The work's own budget, counted once the browser is ready; `deadlineAt` then only
   * bounds the wait. A time-out is then the document's doing, never the queue's.
   */
  workBudgetMs?: number;
  /** Called once the browser is ready and the work starts (the async worker times its renders from here). */
  onStart?: () => void;
}

interface Waiter {
  resolve(slot: BrowserSlot): void;
  reject(error: Error): void;
}

/**
 * A fixed number of warm browsers with a FIFO queue in front. Browsers start lazily on
 * first need (or in `warmUp`), are relaunched after a crash with the render retried once,
 * are killed when a render overruns its deadline, and are recycled in the background.
 */
export class BrowserPool {
  readonly #options: BrowserPoolOptions;
  readonly #slots: BrowserSlot[] = [];
  readonly #idle: BrowserSlot[] = [];
  readonly #waiters: Waiter[] = [];
  #renders = 0;
  #closed = false;

  constructor(options: BrowserPoolOptions) {
    this.#options = options;
  }

  /**
   * Runs `work` on a leased page before `deadlineAt` (a `performance.now()` time).
   * @throws RenderError RENDER_TIMEOUT (the browser was killed), BROWSER_BUSY (none free in time) or RENDER_FAILED.
   */
  async run<T>(
    work: (page: GuardedPage, deadlineAt: number) => Promise<T>,
    deadlineAt: number,
    options: RunOptions = {},
  ): Promise<T> {
    const slot = await this.#acquire(deadlineAt);
    let served = false;
    try {
      const result = await this.#runOnSlot(slot, work, deadlineAt, true, options);
      slot.renders += 1;
      this.#renders += 1;
      served = true;
      return result;
    } finally {
      if (served && slot.renders % this.#options.gcEvery === 0 && slot.renders < this.#options.recycleAfter) {
        void slot.collectGarbage().finally(() => this.#release(slot));
      } else {
        this.#release(slot);
      }
    }
  }

  async #runOnSlot<T>(
    slot: BrowserSlot,
    work: (page: GuardedPage, deadlineAt: number) => Promise<T>,
    deadlineAt: number,
    mayRetry: boolean,
    options: RunOptions,
  ): Promise<T> {
    let working = false;
    try {
      // A launch that outlives the deadline is left to finish: the next render uses it.
      const page = await withDeadline(slot.ready(), deadlineAt, () => {});
      working = true;
      options.onStart?.();
      const workDeadline = options.workBudgetMs === undefined ? deadlineAt : performance.now() + options.workBudgetMs;
      return await withDeadline(work(page, workDeadline), workDeadline, () => slot.kill());
    } catch (error) {
      if (!working && error instanceof DeadlineExceeded) {
        throw new RenderError("BROWSER_BUSY", "no browser was ready in time", { cause: error });
      }
      // puppeteer's own time-outs (setContent, pdf, protocol) mean the same: the browser is
      // busy with work nobody waits for any more, so it goes.
      if (error instanceof DeadlineExceeded || error instanceof TimeoutError) {
        slot.kill();
        throw new RenderError("RENDER_TIMEOUT", "rendering did not finish in time", { cause: error });
      }
      if (error instanceof RenderError) throw error;
      // The browser died under us (crash, OOM, killed): relaunch and try once more.
      if (mayRetry && !slot.alive && remainingMs(deadlineAt) > 0) {
        return this.#runOnSlot(slot, work, deadlineAt, false, options);
      }
      throw new RenderError("RENDER_FAILED", "Chromium failed to render the document", { cause: error });
    }
  }

  /**
   * Launches browsers now, up to `count` in the pool (all by default), e.g. during a Lambda
   * init phase. A launching browser is in the pool at once, idle: a render that arrives
   * meanwhile takes it and waits for the launch under way instead of launching another
   * browser beside it (on a cold container's two vCPUs a second launch slows both).
   */
  async warmUp(count = this.#options.size): Promise<void> {
    if (this.#closed) throw poolClosed();
    const launching: Promise<unknown>[] = [];
    while (this.#slots.length < Math.min(count, this.#options.size)) {
      const slot = new BrowserSlot(this.#options.launch);
      this.#slots.push(slot);
      this.#idle.unshift(slot);
      launching.push(slot.ready());
    }
    await Promise.all(launching);
  }

  /** Closes all browsers; queued renders fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(poolClosed());
    const slots = this.#slots.splice(0);
    this.#idle.length = 0;
    await Promise.all(slots.map((slot) => slot.close()));
  }

  /** Live browsers, pages leased right now, renders waiting, renders completed since the pool started. */
  stats(): PoolStats {
    return {
      browsers: this.#slots.filter((slot) => slot.alive).length,
      busy: this.#slots.length - this.#idle.length,
      queued: this.#waiters.length,
      renders: this.#renders,
    };
  }

  #acquire(deadlineAt: number): Promise<BrowserSlot> {
    if (this.#closed) return Promise.reject(poolClosed());
    const idle = this.#idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.#slots.length < this.#options.size) {
      const slot = new BrowserSlot(this.#options.launch);
      this.#slots.push(slot);
      return Promise.resolve(slot);
    }
    return this.#enqueue(deadlineAt);
  }

  #enqueue(deadlineAt: number): Promise<BrowserSlot> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      this.#waiters.push(waiter);
      if (!Number.isFinite(deadlineAt)) return;
      const timer = setTimeout(
        () => {
          const index = this.#waiters.indexOf(waiter);
          if (index >= 0) this.#waiters.splice(index, 1);
          reject(new RenderError("BROWSER_BUSY", "no browser became free in time"));
        },
        Math.max(0, remainingMs(deadlineAt)),
      );
      waiter.resolve = (slot) => {
        clearTimeout(timer);
        resolve(slot);
      };
    });
  }

  #release(slot: BrowserSlot): void {
    if (this.#closed) return;
    if (slot.renders >= this.#options.recycleAfter) slot.recycle();
    slot.warm(); // relaunch in the background if a time-out or crash killed it
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(slot);
    // Idle slots are taken last-in first-out; one still launching goes to the bottom, so a
    // live browser serves the next render instead of waiting for the launch.
    else if (slot.alive) this.#idle.push(slot);
    else this.#idle.unshift(slot);
  }
}

function poolClosed(): RenderError {
  return new RenderError("RENDER_FAILED", "the renderer has been closed");
}
