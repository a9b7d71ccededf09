/**
 * Webhook tunables. The two environment knobs exist for tests and local experiments
 * (README configuration table); production runs with the defaults.
 */
import { environment } from "#shared/aws/config.ts";
export interface WebhookSettings {
  /** Multiplies every retry delay (schedule and Retry-After); `0.01` turns 5 s into 50 ms. */
  delayScale: number;
  /**
   * Receiver deadline per attempt: 2xx within this many ms is success (15 s:
   * shared/webhooks/README.md#delivery-retries-and-the-delivery-log).
   */
  timeoutMs: number;
  /**
   * Delivery attempts one workspace may have in flight at once, across dispatchers
   * (shared/webhooks/README.md#fair-delivery-across-workspaces).
   */
  workspaceInFlight: number;
}

/** shared/limits/README.md#service-limits: at most 10 endpoints per workspace. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 10;
/**
 * A secret rotation may keep the previous secret signing (a second `v1=`, a deviation from
 * the one-value form of shared/webhooks/README.md#signature-format the caller opts into) for at most this many
 * hours.
 */
export const MAX_PREVIOUS_SECRET_HOURS = 72;
/** Delivery-log items are kept 30 days (DynamoDB TTL on `expiresAt`, readers filter too). */
export const DELIVERY_LOG_DAYS = 30;

const DEFAULT_TIMEOUT_MS = 15_000;

function positiveNumber(name: string, fallback: number): number {
  const raw = environment()[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

let cached: WebhookSettings | undefined;

/**
 * Reads `PLATEN_WEBHOOK_DELAY_SCALE` (default 1), `PLATEN_WEBHOOK_TIMEOUT_MS` (default
 * 15000) and `PLATEN_WEBHOOK_WORKSPACE_IN_FLIGHT` (default 5) once; a bad value fails fast naming the variable.
 */
export function webhookSettings(): WebhookSettings {
  cached ??= {
    delayScale: positiveNumber("PLATEN_WEBHOOK_DELAY_SCALE", 1),
    timeoutMs: positiveNumber("PLATEN_WEBHOOK_TIMEOUT_MS", DEFAULT_TIMEOUT_MS),
    workspaceInFlight: Math.floor(positiveNumber("PLATEN_WEBHOOK_WORKSPACE_IN_FLIGHT", 5)),
  };
  return cached;
}
