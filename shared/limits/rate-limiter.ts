import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { RateClass } from "#shared/definitions/rate-classes.ts";
import { rateLimits } from "./limits-config.ts";

const WINDOW_SECONDS = 60;

/**
 * The port of the rate rule: one counter per workspace, class and window (the usage table,
 * usage-table.ts, in production). `count` adds one request and returns false, adding
 * nothing, when the window already holds `limit`, atomically, so concurrent requests can never exceed it.
 */
export interface RateWindows {
  count(
    workspaceId: string,
    rateClass: RateClass,
    windowStart: number,
    limit: number,
    expiresAt: number,
  ): Promise<boolean>;
}

/**
 * A fixed one-minute window per workspace and class (shared/limits/README.md#rate-limits). Over
 * the limit → 429 RATE_LIMITED with the seconds until the window frees (Retry-After and
 * body `retryAfter`). Windows expire one window after they end.
 */
export async function checkRateLimit(
  workspaceId: string,
  rateClass: RateClass,
  { clock, windows }: { clock: Clock; windows: RateWindows },
): Promise<void> {
  const limit = rateLimits()[rateClass];
  const nowSeconds = clock.now().getTime() / 1000;
  const windowStart = Math.floor(nowSeconds / WINDOW_SECONDS) * WINDOW_SECONDS;
  if (await windows.count(workspaceId, rateClass, windowStart, limit, windowStart + 2 * WINDOW_SECONDS)) return;
  const retryAfter = Math.max(1, Math.ceil(windowStart + WINDOW_SECONDS - nowSeconds));
  throw new PlatenError("RATE_LIMITED", { retryAfter });
}
