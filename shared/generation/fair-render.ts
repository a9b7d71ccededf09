import { queues } from "#infra/definitions/queues.ts";
import type { Clock } from "#shared/clock.ts";
import { logger } from "#shared/observability/logger.ts";
import { readRenderConfig } from "#shared/render/render-config.ts";
import { RenderError } from "#shared/render/renderer.ts";
import { type FairShareConfig, fitsInvocation, readFairShareConfig } from "./fair-share.ts";
import { dynamoLeaseStore, giveBackLease, type LeaseStore, takeLease } from "./render-leases.ts";
import type { Outcome } from "./render-file.ts";

/** What the render worker needs to share rendering fairly between workspaces. */
export interface FairRendering {
  store: LeaseStore;
  config: FairShareConfig;
  /** The render budget (RENDER_TIMEOUT_MS): a render waits at most this for a browser, then works at most this. */
  budgetMs: number;
  /** Time left in this invocation (the Lambda context's). */
  remainingMs(): number;
}

/** A render that did not start: its message goes back to the queue at once. */
export const DEFERRED = Symbol("deferred");

/** Slack on a lease beyond the longest render, for storing and settling its file. */
const LEASE_SLACK_MS = 15_000;

/**
 * The worker's fairness from its environment: leases in the usage table, the cap of
 * `PLATEN_RENDER_WORKSPACE_CAP` or, by default, what one container renders at once (never
 * less than a batch, so one workspace's batch is never split).
 */
export function fairRenderingFromEnv(remainingMs: () => number, env: NodeJS.ProcessEnv = process.env): FairRendering {
  const render = readRenderConfig(env);
  return {
    store: dynamoLeaseStore,
    config: readFairShareConfig(env, Math.max(render.browsers, queues.render.batchSize)),
    budgetMs: render.timeoutMs,
    remainingMs,
  };
}

/**
 * Runs `render` in one of the workspace's render slots, or returns DEFERRED without
 * rendering when the workspace already holds its cap, when the invocation has no time left
 * for a whole render, or when no browser became free within the budget (BROWSER_BUSY).
 * A render that timed out keeps its slot for the penalty (fair-share.ts `endLease`).
 */
export async function renderInSlot(workspaceId: string, fair: FairRendering, clock: Clock, render: () => Promise<Outcome>): Promise<Outcome | typeof DEFERRED> {
  if (!fitsInvocation(fair.remainingMs(), fair.budgetMs)) return DEFERRED;
  const token = crypto.randomUUID();
  const now = clock.now().getTime();
  if (!(await takeLease(fair.store, workspaceId, token, now + 2 * fair.budgetMs + LEASE_SLACK_MS, now, fair.config.workspaceCap))) return DEFERRED;
  let timedOut = false;
  try {
    const outcome = await render();
    timedOut = outcome.errorCode === "RENDER_TIMEOUT";
    return outcome;
  } catch (err) {
    if (err instanceof RenderError && err.code === "BROWSER_BUSY") return DEFERRED;
    throw err;
  } finally {
    const ended = await giveBackLease(fair.store, workspaceId, token, clock.now().getTime(), timedOut, fair.config.timeoutPenaltyMs).catch(() => false);
    // Not fatal: the lease then ends at its own expiry.
    if (!ended) logger.warn("render lease not given back", { workspaceId });
  }
}
