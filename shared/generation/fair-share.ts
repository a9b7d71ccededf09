/**
 * The pure rules of fair rendering across workspaces (issue 15 item 4): how many renders a
 * workspace may hold at once, how a time-out is charged, how long a deferred message waits.
 * The store that applies them across render containers is `render-leases.ts`.
 */

/** A workspace's render leases: token → expiry (epoch ms). */
export type Leases = Record<string, number>;

/** The knobs of fair rendering (environment, read once per container). */
export interface FairShareConfig {
  /** Renders one workspace may hold at once across every render container. */
  workspaceCap: number;
  /** How long a timed-out render keeps its slot after it ended (the workspace's charge). */
  timeoutPenaltyMs: number;
  /** The longest a deferred message waits before it is delivered again. */
  maxDeferSeconds: number;
}

/**
 * `PLATEN_RENDER_WORKSPACE_CAP` (default: this container's browsers, which is the whole
 * fleet of the local stack; the CDK stack sets the fleet-wide value of
 * `infra/definitions/queues.ts`), `PLATEN_RENDER_TIMEOUT_PENALTY_SECONDS` (60),
 * `PLATEN_RENDER_DEFER_MAX_SECONDS` (30).
 */
export function readFairShareConfig(env: NodeJS.ProcessEnv, browsers: number): FairShareConfig {
  return {
    workspaceCap: positive(env.PLATEN_RENDER_WORKSPACE_CAP) ?? Math.max(1, browsers),
    timeoutPenaltyMs: (positive(env.PLATEN_RENDER_TIMEOUT_PENALTY_SECONDS) ?? 60) * 1000,
    maxDeferSeconds: Math.min(900, positive(env.PLATEN_RENDER_DEFER_MAX_SECONDS) ?? 30),
  };
}

const positive = (value: string | undefined): number | undefined => {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
};

/** The leases still running at `nowMs`: a crashed worker's lease simply runs out. */
export function liveLeases(leases: Leases, nowMs: number): Leases {
  return Object.fromEntries(Object.entries(leases).filter(([, until]) => until > nowMs));
}

/**
 * The leases with `token` added until `untilMs`, or undefined when the workspace already
 * holds `cap` live ones (its message goes back to the queue). Expired leases are dropped.
 */
export function admit(leases: Leases, token: string, untilMs: number, nowMs: number, cap: number): Leases | undefined {
  const live = liveLeases(leases, nowMs);
  if (Object.keys(live).length >= cap) return undefined;
  return { ...live, [token]: untilMs };
}

/**
 * The leases once `token`'s render ended. A render that ran out of time is charged: its
 * slot stays taken until `nowMs + penaltyMs`, so a workspace whose documents keep timing
 * out holds fewer renders at once for a while. Any other end frees the slot at once.
 */
export function endLease(leases: Leases, token: string, nowMs: number, timedOut: boolean, penaltyMs: number): Leases {
  const live = liveLeases(leases, nowMs);
  if (!(token in live)) return live;
  if (timedOut) return { ...live, [token]: nowMs + penaltyMs };
  const { [token]: _ended, ...rest } = live;
  return rest;
}

/**
 * Seconds a deferred message waits before its next delivery: 1, 2, 4, … up to
 * `maxSeconds`, plus up to a second of jitter so a backlog does not come back in step.
 */
export function deferDelaySeconds(deferrals: number, maxSeconds: number, random: () => number = Math.random): number {
  const base = Math.min(maxSeconds, 2 ** Math.min(10, Math.max(0, deferrals)));
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
