import { type Environment, environment } from "#shared/aws/config.ts";
import { isTransientAwsError } from "#shared/aws/transient-error.ts";
import type { Clock } from "#shared/clock.ts";
import { logger } from "#shared/observability/logger.ts";
import { readRenderConfig } from "#shared/render/render-config.ts";
import { RenderError } from "#shared/render/renderer.ts";
import { type FairShareConfig, fitsInvocation, readFairShareConfig } from "./fair-share.ts";
import { dynamoLeaseStore } from "./render-lease-table.ts";
import { giveBackLeases, type LeaseStore, takeLeases } from "./render-leases.ts";
import type { Outcome } from "./render-file.ts";

/** What the render worker needs to share rendering fairly between workspaces. */
export interface FairRendering {
  store: LeaseStore;
  config: FairShareConfig;
  /** The render budget (RENDER_TIMEOUT_MS): a render waits at most this for a browser, then works at most this. */
  budgetMs: number;
  /** Time left in this invocation (the Lambda context's). */
  remainingMs(): number;
  /**
   * Whether a fresh invocation fits a whole render (2 × budget + margin). When even the first
   * file of an invocation would not fit (a render budget too long for the function's
   * time-out), files are rendered anyway: deferring them would repeat for ever.
   */
  deferForTime: boolean;
  /** Files this container renders at once (its browsers): a batch takes at most this many leases per workspace. */
  lanes?: number;
}

/** A render that did not start: its message goes back to the queue at once. */
export const DEFERRED = Symbol("deferred");

/** Slack on a lease beyond the longest render, for storing and settling its file. */
const LEASE_SLACK_MS = 15_000;

/**
 * The worker's fairness from its environment: leases in the usage table, the knobs of
 * fair-share.ts (the default work allowance scaled to this container's browsers).
 */
export function fairRenderingFromEnv(remainingMs: () => number, env: Environment = environment()): FairRendering {
  const render = readRenderConfig(env);
  // Read at the start of the invocation (the handler builds this per invocation).
  const deferForTime = fitsInvocation(remainingMs(), render.timeoutMs);
  if (!deferForTime)
    logger.warn("render budget too long for the function's time-out: files are not deferred for time", {
      budgetMs: render.timeoutMs,
    });
  return {
    store: dynamoLeaseStore,
    config: readFairShareConfig(env, render.browsers),
    budgetMs: render.timeoutMs,
    remainingMs,
    deferForTime,
    lanes: render.browsers,
  };
}

/** A render that holds a slot: told when it reaches a browser (its time is measured from there). */
export type SlotRender = (onBrowser: () => void) => Promise<Outcome>;

/**
 * A workspace's render slots for the files of one batch: `run` renders one of them in a slot or
 * returns DEFERRED without rendering; `close` gives back whatever is still held (the slots are
 * given back as soon as the last of the `files` runs ended, in one write).
 */
export interface RenderSlots {
  run(render: SlotRender): Promise<Outcome | typeof DEFERRED>;
  close(): Promise<void>;
}

/**
 * Runs `render` in one of the workspace's render slots, or returns DEFERRED without
 * rendering when the workspace already holds its cap, when the lease store failed
 * transiently (throttled, 5xx, no answer), when the invocation has no time left for a whole
 * render, or when no browser became free within the budget (BROWSER_BUSY).
 * A render that timed out keeps its slot for the penalty (fair-share.ts `endLease`).
 */
export async function renderInSlot(
  workspaceId: string,
  fair: FairRendering,
  clock: Clock,
  render: SlotRender,
): Promise<Outcome | typeof DEFERRED> {
  const slots = renderSlots(workspaceId, fair, clock, 1);
  try {
    return await slots.run(render);
  } finally {
    await slots.close();
  }
}

/**
 * Slots for `files` renders of one workspace in one batch. A container renders at most
 * `fair.lanes` files at once (its browsers), so the batch takes that many leases or fewer (as
 * many as the workspace has room for, at least one) in one conditional write, renders its files
 * through them one after another, and gives them back in one write when its last render ends:
 * two lease writes per batch and workspace instead of two per file. The workspace never holds
 * more leases than its cap, and never renders more files at once than the leases it holds.
 * The leases last long enough for a lane's files in turn (each 2 × budget + slack); a file that
 * would start too late for its lease, or for the invocation, is deferred, and so is every file
 * not yet started once one found no browser in time.
 */
export function renderSlots(workspaceId: string, fair: FairRendering, clock: Clock, files: number): RenderSlots {
  const wanted = Math.max(1, Math.min(files, fair.lanes ?? 1));
  const perRenderMs = 2 * fair.budgetMs + LEASE_SLACK_MS;
  let lease: Promise<Lanes | undefined> | undefined;
  let ended = 0;
  let busy = false;
  let given: Promise<void> | undefined;
  const giveBack = () => (given ??= lease ? lease.then((l) => l?.giveBack()) : Promise.resolve());
  const run = async (render: SlotRender): Promise<Outcome | typeof DEFERRED> => {
    try {
      if (fair.deferForTime && !fitsInvocation(fair.remainingMs(), fair.budgetMs)) return DEFERRED;
      lease ??= takeLanes(workspaceId, fair, clock, wanted, Math.ceil(files / wanted) * perRenderMs);
      const lanes = await lease;
      if (!lanes) return DEFERRED;
      return await lanes.inLane(async (lane) => {
        // A render starts only with its whole budget left on the lease (the wait for a browser and
        // the render); the slack stays for storing and settling.
        const late = clock.now().getTime() + 2 * fair.budgetMs > lanes.untilMs;
        if (busy || late || (fair.deferForTime && !fitsInvocation(fair.remainingMs(), fair.budgetMs))) return DEFERRED;
        const outcome = await timed(lane, render, fair.budgetMs);
        if (outcome === DEFERRED) busy = true;
        return outcome;
      });
    } finally {
      if (++ended >= files) void giveBack();
    }
  };
  return { run, close: giveBack };
}

/** The leases a batch holds for one workspace, each a lane its files render through in turn. */
interface Lanes {
  untilMs: number;
  inLane<T>(work: (lane: Lane) => Promise<T>): Promise<T>;
  giveBack(): Promise<void>;
}

/** One lease: the renders it ran (browser time) and whether one timed out (its slot is then charged). */
interface Lane {
  token: string;
  tookMs: number[];
  timedOut: boolean;
}

/** Takes up to `wanted` leases in one write; undefined when the workspace is at its cap or the store failed transiently. */
async function takeLanes(
  workspaceId: string,
  fair: FairRendering,
  clock: Clock,
  wanted: number,
  forMs: number,
): Promise<Lanes | undefined> {
  const tokens = Array.from({ length: wanted }, () => crypto.randomUUID());
  const now = clock.now().getTime();
  const untilMs = now + forMs;
  // A write that may have applied before its error came back is undone by takeLeases.
  const taken = await takeLeases(fair.store, workspaceId, tokens, untilMs, now, fair.config).catch((error: unknown) => {
    // Throttled or briefly failing: back to the queue in seconds, not after the visibility
    // time-out. Anything else (access denied, no table) repeats on every try: it is thrown,
    // so the message's retries run out into the DLQ and its alarm.
    if (!isTransientAwsError(error)) throw error;
    logger.warn("render lease not taken: the file goes back to the queue", { workspaceId, error: String(error) });
    return undefined;
  });
  if (!taken) return undefined;
  const lanes: Lane[] = taken.tokens.map((token) => ({ token, tookMs: [], timedOut: false }));
  const free = [...lanes];
  const waiting: ((lane: Lane) => void)[] = [];
  return {
    untilMs,
    async inLane(work) {
      const lane = free.pop() ?? (await new Promise<Lane>((resolve) => waiting.push(resolve)));
      try {
        return await work(lane);
      } finally {
        const next = waiting.shift();
        if (next) next(lane);
        else free.push(lane);
      }
    },
    async giveBack() {
      const ends = lanes.map((l) => ({ token: l.token, timedOut: l.timedOut }));
      const nowMs = clock.now().getTime();
      await giveBackLeases(
        fair.store,
        workspaceId,
        taken.shard,
        ends,
        lanes.flatMap((l) => l.tookMs),
        nowMs,
        fair.config,
      )
        // Not fatal: the leases then end at their own expiry.
        .catch((error: unknown) => logger.warn("render lease not given back", { workspaceId, error: String(error) }));
    },
  };
}

/** One render in `lane`, its browser time recorded (a time-out as the whole budget); BROWSER_BUSY → DEFERRED. */
async function timed(lane: Lane, render: SlotRender, budgetMs: number): Promise<Outcome | typeof DEFERRED> {
  // Browser time only: the wait for a browser is the pool's queue, not the document's cost.
  let started: number | undefined;
  let timedOut = false;
  try {
    const outcome = await render(() => (started ??= performance.now()));
    timedOut = outcome.errorCode === "RENDER_TIMEOUT";
    return outcome;
  } catch (err) {
    if (err instanceof RenderError && err.code === "BROWSER_BUSY") return DEFERRED;
    throw err;
  } finally {
    // A time-out counts as the whole budget; a render that never reached a browser, not at all.
    if (timedOut) {
      lane.timedOut = true;
      lane.tookMs.push(budgetMs);
    } else if (started !== undefined) lane.tookMs.push(performance.now() - started);
  }
}
