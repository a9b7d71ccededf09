/**
 * Limits (shared/limits/README.md#service-limits), from configuration so operators can change them without a
 * deploy of new code (and, later, per plan). PLATEN_RATE_LIMITS and PLATEN_PLAN_PAGES take JSON
 * objects that override the defaults key by key.
 */
import { environment } from "#shared/aws/config.ts";
import type { RateClass } from "#shared/definitions/rate-classes.ts";

export interface PlanLimits {
  /** Pages a month: the hard limit of stopping plans, the included pages of the others. */
  monthlyPages: number;
  /** Stopping plans refuse work at the limit (403); the others count overage. */
  stops: boolean;
}

const DEFAULT_RATES: Record<RateClass, number> = {
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

function jsonEnv<T>(name: string): Partial<T> {
  const raw = environment()[name];
  if (!raw) return {};
  try {
    return JSON.parse(raw) as Partial<T>;
  } catch {
    throw new Error(`${name} must be a JSON object, e.g. {"sync":30}`);
  }
}

/** Requests per minute per workspace and class. */
export function rateLimits(): Record<RateClass, number> {
  return { ...DEFAULT_RATES, ...jsonEnv<Record<RateClass, number>>("PLATEN_RATE_LIMITS") };
}

export function planLimits(): Record<string, PlanLimits> {
  return { ...DEFAULT_PLANS, ...jsonEnv<Record<string, PlanLimits>>("PLATEN_PLAN_PAGES") } as Record<
    string,
    PlanLimits
  >;
}

/** Preview pages a month per plan; a plan without an entry has none. */
export function previewAllowances(): Record<string, number> {
  return { ...DEFAULT_PREVIEW_PAGES, ...jsonEnv<Record<string, number>>("PLATEN_PREVIEW_PAGES") } as Record<
    string,
    number
  >;
}
