/**
 * Webhook tunables. The two environment knobs exist for tests and local experiments
 * (README configuration table); production runs with the defaults.
 */
import { type Environment, environment, positiveInt, positiveNumber } from "#shared/config/settings.ts";
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

let cached: WebhookSettings | undefined;

/**
 * `PLATEN_WEBHOOK_DELAY_SCALE` (a positive number, default 1), `PLATEN_WEBHOOK_TIMEOUT_MS` (a
 * positive number, default 15000) and `PLATEN_WEBHOOK_WORKSPACE_IN_FLIGHT` (a positive
 * integer, default 5); a bad value throws a ConfigError naming the variable.
 */
export function readWebhookSettings(env: Environment = environment()): WebhookSettings {
  return {
    delayScale: positiveNumber(env, "PLATEN_WEBHOOK_DELAY_SCALE") ?? 1,
    timeoutMs: positiveNumber(env, "PLATEN_WEBHOOK_TIMEOUT_MS") ?? DEFAULT_TIMEOUT_MS,
    workspaceInFlight: positiveInt(env, "PLATEN_WEBHOOK_WORKSPACE_IN_FLIGHT") ?? 5,
  };
}

/** The process's webhook settings, read on first use and then reused by warm invocations. */
export function webhookSettings(): WebhookSettings {
  cached ??= readWebhookSettings();
  return cached;
}
