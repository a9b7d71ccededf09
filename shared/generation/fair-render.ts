import { type Environment, environment } from "#shared/aws/config.ts";
import { isTransientAwsError } from "#shared/aws/transient-error.ts";
import type { Clock } from "#shared/clock.ts";
import { logger } from "#shared/observability/logger.ts";
import { readRenderConfig } from "#shared/render/render-config.ts";
import { RenderError } from "#shared/render/renderer.ts";
import { type FairShareConfig, fitsInvocation, readFairShareConfig } from "./fair-share.ts";
import { dynamoLeaseStore } from "./render-lease-table.ts";
import { giveBackLease, type LeaseStore, takeLease } from "./render-leases.ts";
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
  render: (onBrowser: () => void) => Promise<Outcome>,
): Promise<Outcome | typeof DEFERRED> {
  if (fair.deferForTime && !fitsInvocation(fair.remainingMs(), fair.budgetMs)) return DEFERRED;
  const token = crypto.randomUUID();
  const now = clock.now().getTime();
  const until = now + 2 * fair.budgetMs + LEASE_SLACK_MS;
  // A write that may have applied before its error came back is undone by takeLease.
  const shard = await takeLease(fair.store, workspaceId, token, until, now, fair.config).catch((error: unknown) => {
    // Throttled or briefly failing: back to the queue in seconds, not after the visibility
    // time-out. Anything else (access denied, no table) repeats on every try: it is thrown,
    // so the message's retries run out into the DLQ and its alarm.
    if (!isTransientAwsError(error)) throw error;
    logger.warn("render lease not taken: the file goes back to the queue", { workspaceId, error: String(error) });
    return undefined;
  });
  if (shard === undefined) return DEFERRED;
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
    const tookMs = started === undefined ? undefined : performance.now() - started;
    const end = { tookMs: timedOut ? fair.budgetMs : tookMs, timedOut };
    const nowMs = clock.now().getTime();
    await giveBackLease(fair.store, workspaceId, shard, token, nowMs, end, fair.config).catch((error: unknown) =>
      // Not fatal: the lease then ends at its own expiry.
      logger.warn("render lease not given back", { workspaceId, error: String(error) }),
    );
  }
}
