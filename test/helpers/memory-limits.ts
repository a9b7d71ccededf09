import type { RateClass } from "#shared/definitions/rate-classes.ts";
import type { PageCounter } from "#shared/limits/page-quota.ts";
import type { RateWindows } from "#shared/limits/rate-limiter.ts";

/**
 * In-memory fakes of the limits' ports with the adapters' atomic semantics: a bounded
 * `add` and a window `count` check and write in one step (no await between), so
 * concurrent callers race exactly as they do against DynamoDB's conditional writes.
 */
export class MemoryPageCounter implements PageCounter {
  readonly months = new Map<string, number>();

  async add(workspaceId: string, month: string, pages: number, max?: number): Promise<boolean> {
    const key = `${workspaceId}/${month}`;
    const current = this.months.get(key);
    if (max !== undefined && current !== undefined && current > max) return false;
    this.months.set(key, (current ?? 0) + pages);
    return true;
  }

  async used(workspaceId: string, month: string): Promise<number> {
    return this.months.get(`${workspaceId}/${month}`) ?? 0;
  }
}

export class MemoryRateWindows implements RateWindows {
  readonly windows = new Map<string, { count: number; expiresAt: number }>();

  async count(
    workspaceId: string,
    rateClass: RateClass,
    windowStart: number,
    limit: number,
    expiresAt: number,
  ): Promise<boolean> {
    const key = `${workspaceId}#${rateClass}/${windowStart}`;
    const current = this.windows.get(key)?.count ?? 0;
    if (current >= limit) return false;
    this.windows.set(key, { count: current + 1, expiresAt });
    return true;
  }
}
