import { type Environment, environment } from "#shared/config/settings.ts";
import { isTransientAwsError } from "#shared/aws/transient-error.ts";
import type { Clock } from "#shared/clock.ts";
import { logger } from "#shared/observability/logger.ts";
import { readRenderConfig } from "#shared/render/render-config.ts";
import { RenderError } from "#shared/render/render-error.ts";
import { type FairShareConfig, fitsInvocation, readFairShareConfig } from "./fair-share.ts";
import { dynamoLeaseStore } from "./render-lease-table.ts";
import { giveBackLeases, type LeaseStore, takeLeases } from "./render-leases.ts";
import type { Outcome } from "#shared/generation/store/index.ts";

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
 * Slots for `files` renders of one workspace in one batch: one lease per file, taken together (as
 * many as the workspace has room for: one conditional write when one item's part of the cap holds
 * them all, else one per item used) and given back together when the last of their renders ends —
 * two lease writes per batch and workspace instead of two per file, unless the cap is small. The files render side by side as before, one per lease; a file beyond
 * the leases taken goes back to the queue at once, as one at the cap always did. So the workspace
 * never renders more files at once than the leases it holds, nor holds more than its cap; a lease
 * lasts 2 × budget + slack, the longest one render may take.
 */
export function renderSlots(workspaceId: string, fair: FairRendering, clock: Clock, files: number): RenderSlots {
  let lease: Promise<Leases | undefined> | undefined;
  let ended = 0;
  let given: Promise<void> | undefined;
  const giveBack = () => (given ??= lease ? lease.then((l) => l?.giveBack()) : Promise.resolve());
  const run = async (render: SlotRender): Promise<Outcome | typeof DEFERRED> => {
    try {
      if (fair.deferForTime && !fitsInvocation(fair.remainingMs(), fair.budgetMs)) return DEFERRED;
      lease ??= takeBatchLeases(workspaceId, fair, clock, Math.max(1, files));
      const mine = (await lease)?.free.pop();
      if (!mine) return DEFERRED;
      return await timed(mine, render, fair.budgetMs);
    } finally {
      if (++ended >= files) void giveBack();
    }
  };
  return { run, close: giveBack };
}

/** The leases a batch holds for one workspace: those not yet used by a render, and how to give them all back. */
interface Leases {
  free: Lease[];
  giveBack(): Promise<void>;
}

/** One lease: its render's browser time, and whether it timed out (the slot is then charged). */
interface Lease {
  token: string;
  shard: number;
  tookMs?: number;
  timedOut: boolean;
}

/** Takes up to `wanted` leases (one write per item used); undefined when the workspace is at its cap or the store failed transiently. */
async function takeBatchLeases(
  workspaceId: string,
  fair: FairRendering,
  clock: Clock,
  wanted: number,
): Promise<Leases | undefined> {
  const tokens = Array.from({ length: wanted }, () => crypto.randomUUID());
  const now = clock.now().getTime();
  const until = now + 2 * fair.budgetMs + LEASE_SLACK_MS;
  // A write that may have applied before its error came back is undone by takeLeases.
  const taken = await takeLeases(fair.store, workspaceId, tokens, until, now, fair.config).catch((error: unknown) => {
    // Throttled or briefly failing: back to the queue in seconds, not after the visibility
    // time-out. Anything else (access denied, no table) repeats on every try: it is thrown,
    // so the message's retries run out into the DLQ and its alarm.
    if (!isTransientAwsError(error)) throw error;
    logger.warn("render lease not taken: the file goes back to the queue", { workspaceId, error: String(error) });
    return undefined;
  });
  if (!taken?.length) return undefined;
  const leases: Lease[] = taken.flatMap((t) => t.tokens.map((token) => ({ token, shard: t.shard, timedOut: false })));
  return {
    free: [...leases],
    async giveBack() {
      const nowMs = clock.now().getTime();
      // One write per item, each learning the times of the renders that held its leases.
      await Promise.all(
        taken.map(({ shard }) => {
          const mine = leases.filter((l) => l.shard === shard);
          const ends = mine.map((l) => ({ token: l.token, timedOut: l.timedOut }));
          const took = mine.flatMap((l) => (l.tookMs === undefined ? [] : [l.tookMs]));
          return giveBackLeases(fair.store, workspaceId, shard, ends, took, nowMs, fair.config).catch(
            // Not fatal: the leases then end at their own expiry.
            (error: unknown) => logger.warn("render lease not given back", { workspaceId, error: String(error) }),
          );
        }),
      );
    },
  };
}

/** One render in `lease`, its browser time recorded (a time-out as the whole budget); BROWSER_BUSY → DEFERRED. */
async function timed(lease: Lease, render: SlotRender, budgetMs: number): Promise<Outcome | typeof DEFERRED> {
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
    lease.timedOut = timedOut;
    if (timedOut) lease.tookMs = budgetMs;
    else if (started !== undefined) lease.tookMs = performance.now() - started;
  }
}
