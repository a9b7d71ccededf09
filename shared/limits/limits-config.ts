/**
 * Limits (shared/limits/README.md#service-limits), from configuration so operators can change them without a
 * deploy of new code (and, later, per plan). PLATEN_RATE_LIMITS and PLATEN_PLAN_PAGES take JSON
 * objects that override the defaults key by key.
 */
import { type Environment, environment, jsonObject } from "#shared/config/settings.ts";
import type { RateClass } from "#shared/definitions/rate-classes.ts";

export interface PlanLimits {
  /** Pages a month: the hard limit of stopping plans, the included pages of the others. */
  monthlyPages: number;
  /** Stopping plans refuse work at the limit (403); the others count overage. */
  stops: boolean;
}

export const DEFAULT_RATES: Record<RateClass, number> = {
  sync: 30,
  async: 100,
  retrieval: 100,
  status: 300,
  preview: 60,
  "design-write": 60,
};

/**
 * shared/limits/README.md#service-limits: free 30 pages and stops; personal stops at its limit (ours: 500);
 * standard/premium bill overage.
 */
const DEFAULT_PLANS: Record<string, PlanLimits> = {
  free: { monthlyPages: 30, stops: true },
  personal: { monthlyPages: 500, stops: true },
  standard: { monthlyPages: 1000, stops: false },
  premium: { monthlyPages: 10000, stops: false },
};

/**
 * Preview pages a month per plan (shared/limits/README.md#preview-allowance), counted apart from generation pages
 * and never billed. `PLATEN_PREVIEW_PAGES` overrides them plan by plan, e.g. `{"free":20}`.
 */
const DEFAULT_PREVIEW_PAGES: Record<string, number> = { free: 300, personal: 3000, standard: 10000, premium: 50000 };

/** Requests per minute per workspace and class (`PLATEN_RATE_LIMITS` over the defaults). */
export function rateLimits(env: Environment = environment()): Record<RateClass, number> {
  return {
    ...DEFAULT_RATES,
    ...jsonObject<Partial<Record<RateClass, number>>>(env, "PLATEN_RATE_LIMITS", '{"sync":30}'),
  };
}

/** Pages a month per plan (`PLATEN_PLAN_PAGES` over the defaults). */
export function planLimits(env: Environment = environment()): Record<string, PlanLimits> {
  const example = '{"free":{"monthlyPages":30,"stops":true}}';
  return { ...DEFAULT_PLANS, ...jsonObject<Record<string, PlanLimits>>(env, "PLATEN_PLAN_PAGES", example) };
}

/** Preview pages a month per plan (`PLATEN_PREVIEW_PAGES` over the defaults); a plan without an entry has none. */
export function previewAllowances(env: Environment = environment()): Record<string, number> {
  return {
    ...DEFAULT_PREVIEW_PAGES,
    ...jsonObject<Record<string, number>>(env, "PLATEN_PREVIEW_PAGES", '{"free":300}'),
  };
}
