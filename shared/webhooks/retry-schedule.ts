const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits after failed attempt 1, 2, … 9 (see shared/webhooks/README.md#delivery-retries-and-the-delivery-log):
 * about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h — ten attempts over roughly three days.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** The first attempt plus one per scheduled retry. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** ±10 %: endpoints that failed together do not all come back in the same second. */
const JITTER = 0.1;
/** A `Retry-After` longer than this is capped: the schedule never waits more than a day. */
const MAX_RETRY_AFTER_MS = 24 * HOUR;

/** Knobs of {@link decideAfterAttempt}; `random` and `now` are injected by tests. */
export interface RetryOptions {
  /** Multiplies every delay (PLATEN_WEBHOOK_DELAY_SCALE; 1 in production). */
  scale: number;
  random?: () => number;
  now?: Date;
}

/**
 * The wait after failed attempt `attempt` (1-based), jittered and scaled, or undefined
 * when the schedule is exhausted.
 */
export function retryDelayMs(attempt: number, { scale, random = Math.random }: RetryOptions): number | undefined {
  const base = RETRY_SCHEDULE_MS[attempt - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()) * scale);
}

/**
 * `Retry-After` (RFC 9110 10.2.3) in ms: delay-seconds or an HTTP-date, capped at 24 h.
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * SECOND, MAX_RETRY_AFTER_MS);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now.getTime()), MAX_RETRY_AFTER_MS);
}

/** What one attempt produced (see send-webhook.ts). */
export interface AttemptResult {
  statusCode?: number;
  /** The raw `Retry-After` header of a 429 or 503. */
  retryAfter?: string;
  error?: string;
  latencyMs: number;
}

/** What happens to a delivery after an attempt. */
export type AttemptDecision =
  | { outcome: "delivered" }
  | { outcome: "retry"; delayMs: number }
  | { outcome: "failed"; deadLetter: boolean; disableEndpoint: boolean };

const isSuccess = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/**
 * The dispatcher's rules: 2xx is success; 410 fails the delivery and disables the
 * endpoint; any other answer (3xx included — redirects are never followed), a time-out or
 * a connection error is retried on the schedule, `Retry-After` of a 429/503 replacing the
 * scheduled wait; a manual redelivery is a single attempt; after the last scheduled
 * attempt the delivery is dead-lettered.
 */
export function decideAfterAttempt(
  result: AttemptResult,
  attempt: number,
  manual: boolean,
  options: RetryOptions,
): AttemptDecision {
  if (isSuccess(result.statusCode)) return { outcome: "delivered" };
  if (result.statusCode === 410) return { outcome: "failed", deadLetter: false, disableEndpoint: true };
  if (manual) return { outcome: "failed", deadLetter: false, disableEndpoint: false };
  const scheduled = retryDelayMs(attempt, options);
  if (scheduled === undefined) return { outcome: "failed", deadLetter: true, disableEndpoint: false };
  const throttled = result.statusCode === 429 || result.statusCode === 503;
  const asked = throttled ? parseRetryAfter(result.retryAfter, options.now ?? new Date()) : undefined;
  return { outcome: "retry", delayMs: asked === undefined ? scheduled : Math.round(asked * options.scale) };
}
