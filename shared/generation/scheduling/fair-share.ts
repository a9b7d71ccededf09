/**
 * The pure rules of fair rendering across workspaces: how many renders a
 * workspace may hold at once, how a time-out is charged, how long a deferred message waits.
 * The cap is in expected rendering time, not a count: a workspace of fast documents (an
 * invoice: ~0.1 s) keeps every browser busy alone, one of slow documents holds few.
 * The store that applies them across render containers is `render-leases.ts`.
 */
import { durationMs, type Environment, positiveInt } from "#shared/config/settings.ts";

/** A workspace's render leases: token → expiry (epoch ms). */
export type Leases = Record<string, number>;

/**
 * What one lease item of a workspace keeps (lease-shards.ts): its leases and how long the
 * workspace's renders took lately.
 */
export interface RenderShare {
  leases: Leases;
  /** Moving average of the workspace's render times (ms); absent before its first render. */
  avgMs?: number;
  /** When the average was last written (epoch ms): of a workspace's items, the newest average is its best. */
  avgAt?: number;
}

/** The knobs of fair rendering (environment, read once per invocation). */
export interface FairShareConfig {
  /**
   * Expected rendering one workspace may have in flight at once: its renders in flight ×
   * its average render time. Fast documents are barely limited, slow ones are.
   */
  workMs: number;
  /** Renders a workspace may always hold, however slow its documents. */
  minInFlight: number;
  /**
   * The average assumed before a workspace's first render: a fast document's, so a new
   * workspace's first burst is not deferred (its first renders then set its real average).
   */
  initialAvgMs: number;
  /** How long a timed-out render keeps its slot after it ended (the workspace's charge). */
  timeoutPenaltyMs: number;
  /** The longest a deferred message waits before it is delivered again. */
  maxDeferSeconds: number;
}

/**
 * `PLATEN_RENDER_WORKSPACE_WORK_SECONDS` (default: 2 s per browser of this container, the
 * whole fleet of the local stack; the CDK stack sets the fleet-wide value of
 * `shared/definitions/queues.ts`), `PLATEN_RENDER_WORKSPACE_MIN` (2),
 * `PLATEN_RENDER_TIMEOUT_PENALTY_SECONDS` (60), `PLATEN_RENDER_DEFER_MAX_SECONDS` (20, at
 * most SQS's 900). Each a positive integer; anything else throws a ConfigError.
 */
export function readFairShareConfig(env: Environment, browsers: number): FairShareConfig {
  return {
    workMs: durationMs(env, "PLATEN_RENDER_WORKSPACE_WORK_SECONDS", "s") ?? 2 * Math.max(1, browsers) * 1000,
    minInFlight: positiveInt(env, "PLATEN_RENDER_WORKSPACE_MIN") ?? 2,
    initialAvgMs: 200,
    timeoutPenaltyMs: durationMs(env, "PLATEN_RENDER_TIMEOUT_PENALTY_SECONDS", "s") ?? 60_000,
    maxDeferSeconds: Math.min(900, positiveInt(env, "PLATEN_RENDER_DEFER_MAX_SECONDS") ?? 20),
  };
}

/** The leases still running at `nowMs`: a crashed worker's lease simply runs out. */
export function liveLeases(leases: Leases, nowMs: number): Leases {
  return Object.fromEntries(Object.entries(leases).filter(([, until]) => until > nowMs));
}

/**
 * The workspace's average as its lease items know it: the one written last. Each item learns from
 * the renders that ended on it, a random sample of the workspace's (tokens are random); an item out
 * of use keeps an old one, which the newest supersedes.
 */
export function latestAverage(items: RenderShare[]): Pick<RenderShare, "avgMs"> {
  let latest: RenderShare | undefined;
  for (const item of items)
    if (item.avgMs !== undefined && (latest === undefined || (item.avgAt ?? 0) > (latest.avgAt ?? 0))) latest = item;
  return latest?.avgMs === undefined ? {} : { avgMs: latest.avgMs };
}

/** Renders the workspace may hold at once: its work allowance over its average render time, at least the minimum. */
export function inFlightCap(
  share: Pick<RenderShare, "avgMs">,
  config: Pick<FairShareConfig, "workMs" | "minInFlight" | "initialAvgMs">,
): number {
  const avgMs = Math.max(1, share.avgMs ?? config.initialAvgMs);
  return Math.max(config.minInFlight, Math.floor(config.workMs / avgMs));
}

/**
 * The lease item with `token` added until `untilMs`, or undefined when it already holds `cap`
 * live leases (the workspace's cap, or its part of it on this item: lease-shards.ts `shardCap`;
 * the message goes back to the queue). Expired leases are dropped.
 */
export function admitRender(
  share: RenderShare,
  token: string,
  untilMs: number,
  nowMs: number,
  cap: number,
): RenderShare | undefined {
  const live = liveLeases(share.leases, nowMs);
  if (Object.keys(live).length >= cap) return undefined;
  return { ...share, leases: { ...live, [token]: untilMs } };
}

/** How a render that held a lease ended. */
export interface RenderEnd {
  /** Browser time it took (a time-out: the whole budget); undefined if it never reached a browser. */
  tookMs?: number;
  timedOut: boolean;
}

/** Weight of the newest render in the moving average. */
const AVG_WEIGHT = 0.3;

/**
 * The share once `token`'s render ended: its time joins the average (so slow documents
 * shrink the workspace's cap), and a render that ran out of time is charged: its slot
 * stays taken until `nowMs + penaltyMs`. Any other end frees the slot at once.
 */
export function endLease(
  share: RenderShare,
  token: string,
  nowMs: number,
  end: RenderEnd,
  penaltyMs: number,
): RenderShare {
  const live = liveLeases(share.leases, nowMs);
  const avgMs = movingAverage(share.avgMs, end.tookMs);
  if (!(token in live)) return { leases: live, ...(avgMs === undefined ? {} : { avgMs }) };
  const leases: Leases = { ...live };
  if (end.timedOut) leases[token] = nowMs + penaltyMs;
  else delete leases[token];
  return { leases, ...(avgMs === undefined ? {} : { avgMs }) };
}

/** The average with one more render's time (unchanged without one). */
export const movingAverage = (avgMs: number | undefined, tookMs: number | undefined): number | undefined => {
  if (tookMs === undefined) return avgMs;
  return avgMs === undefined ? tookMs : avgMs + AVG_WEIGHT * (tookMs - avgMs);
};

/**
 * Seconds a deferred message waits before its next delivery: 1, 1, 2, 2, 4, 4, … up to
 * `maxSeconds` (a long backlog costs fewer receives), plus up to a second of jitter so a
 * backlog does not come back in step.
 */
export function deferDelaySeconds(deferrals: number, maxSeconds: number, random: () => number = Math.random): number {
  const base = Math.min(maxSeconds, 2 ** Math.min(10, Math.floor(Math.max(0, deferrals) / 2)));
  return Math.min(900, Math.floor(base + random()));
}

/**
 * Whether a render not yet started still fits the invocation: the longest wait for a
 * browser plus the render budget plus a margin for storing and settling. A render that
 * does not fit goes back to the queue at once instead of being cut off by the function's
 * time-out (and then waiting out the queue's visibility time-out).
 */
export function fitsInvocation(remainingMs: number, budgetMs: number, marginMs = 10_000): boolean {
  return remainingMs >= 2 * budgetMs + marginMs;
}
