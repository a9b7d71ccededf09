import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { type PlanLimits, planLimits } from "./limits-config.ts";
import type { PageSpread } from "./page-shards.ts";

/**
 * The port of the page rules: a workspace's page count per month (the usage table,
 * usage-table.ts, in production). `add` with `max` is one conditional write: it adds only
 * while the month's count stays at or below `max` and returns false, adding nothing, otherwise.
 */
export interface PageCounter {
  /**
   * `spread` (for plans that never stop): the write goes to that request's item of the month
   * (page-shards.ts); `used` sums them all. A bounded add is never spread.
   */
  add(workspaceId: string, month: string, pages: number, max?: number, spread?: PageSpread): Promise<boolean>;
  used(workspaceId: string, month: string): Promise<number>;
}

/** The UTC calendar month pages are counted in (see shared/limits/README.md#service-limits). */
export const monthOf = (date: Date) => date.toISOString().slice(0, 7);

/** A page admission: the month it was counted in, the pages reserved, the limit of a stopping plan. */
export interface PageAdmission {
  workspaceId: string;
  month: string;
  reserved: number;
  /** Set for plans that stop: no increase may take the month past it. */
  limit?: number;
  /** Set for plans that never stop: the request item the month's writes of this request go to. */
  spread?: PageSpread;
}

/**
 * shared/errors/catalogue.ts: no plan at all → PLAN_NOT_FOUND (403); a plan that is not active →
 * ACTIVE_PLAN_NOT_FOUND (404).
 */
export function planOf(workspace: Workspace): PlanLimits {
  if (!workspace.plan) throw new PlatenError("PLAN_NOT_FOUND");
  const limits = planLimits()[workspace.plan];
  if (!limits) throw new PlatenError("ACTIVE_PLAN_NOT_FOUND");
  return limits;
}

/**
 * Reserves pages before acceptance (one per file; every file has at least one page). On
 * stopping plans the reservation is added only if the month stays within the limit, in
 * the same conditional write, and every later increase (`claimPages`, `correctFilePages`)
 * is conditional the same way: whatever runs concurrently, the month's count never passes
 * the limit. Refused: 403 PLAN_PAGE_LIMIT_EXCEEDED.
 */
export async function admitPages(
  workspace: Workspace,
  files: number,
  { clock, pages }: { clock: Clock; pages: PageCounter },
  requestId?: string,
): Promise<PageAdmission> {
  const plan = planOf(workspace);
  const month = monthOf(clock.now());
  const limit = plan.stops ? plan.monthlyPages : undefined;
  const spread = limit === undefined && requestId ? ({ requestId, layout: "request" } as const) : undefined;
  await claimPages(pages, workspace.id, month, files, limit, 0, spread);
  return {
    workspaceId: workspace.id,
    month,
    reserved: files,
    ...(limit !== undefined && { limit }),
    ...(spread !== undefined && { spread }),
  };
}

/**
 * Adds `pages` to the month; on a stopping plan (`limit` given) only if the month stays
 * within the limit, else 403 PLAN_PAGE_LIMIT_EXCEEDED and nothing is added. `own`: pages
 * the caller counted already and returns on refusal (left out of the "used" it reports).
 */
export async function claimPages(
  counter: PageCounter,
  workspaceId: string,
  month: string,
  pages: number,
  limit: number | undefined,
  own = 0,
  spread?: PageSpread,
): Promise<void> {
  if (pages === 0) return;
  // Returning pages (a negative claim) never needs the limit's condition.
  if (limit === undefined || pages < 0) {
    await counter.add(workspaceId, month, pages, undefined, limit === undefined ? spread : undefined);
    return;
  }
  if (pages > limit || !(await counter.add(workspaceId, month, pages, limit - pages))) {
    throw await limitExceeded(counter, workspaceId, month, limit, own);
  }
}

async function limitExceeded(
  counter: PageCounter,
  workspaceId: string,
  month: string,
  limit: number,
  own: number,
): Promise<PlatenError> {
  const used = Math.max(0, (await counter.used(workspaceId, month)) - own);
  return new PlatenError("PLAN_PAGE_LIMIT_EXCEEDED", { vars: { used, limit } });
}

/**
 * Corrects a reservation by `delta` pages (real pages − reserved; −reserved when nothing was stored),
 * on the item the reservation went to (`spread`: the admission's).
 */
export async function settlePages(
  counter: PageCounter,
  workspaceId: string,
  month: string,
  delta: number,
  spread?: PageSpread,
): Promise<void> {
  if (delta !== 0) await counter.add(workspaceId, month, delta, undefined, spread);
}

/** `admin usage`: pages used, the plan's limit and the billable overage of a month. */
export async function usageReport(counter: PageCounter, workspace: Workspace, month: string) {
  const used = await counter.used(workspace.id, month);
  const plan = workspace.plan ? planLimits()[workspace.plan] : undefined;
  return {
    workspaceId: workspace.id,
    month,
    plan: workspace.plan ?? null,
    pagesUsed: used,
    limit: plan?.monthlyPages ?? null,
    stops: plan?.stops ?? null,
    overage: plan && !plan.stops ? Math.max(0, used - plan.monthlyPages) : 0,
  };
}
