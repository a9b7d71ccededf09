import { BoundedCache, MiB, textBytes } from "#shared/bounded-cache.ts";
import { planOf } from "#shared/limits/page-quota.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { type PreparedSync, renderAll, type SyncDeps } from "./sync-generation.ts";

/**
 * Rendering a sync single while its admission is still on the wire: Chromium's ~40 ms then
 * hide admission's round trips instead of following them. For a key this container has
 * admitted before, beside the key read and the rate-limit write; for another (a cold
 * container's first request), beside the rate-limit write, once the key read has named the
 * workspace (admit.ts `authenticated`). Only for a workspace whose plan, as last seen here,
 * never stops: a stopping plan reserves its pages before anything renders (page-quota.ts).
 * A render started ahead is used only if admission agrees on the workspace; otherwise it is
 * dropped unseen (its errors too), so 401/429 still come first. The cost of a refusal is one
 * render's Chromium time, once per container: a refused key is forgotten and a workspace
 * over its limit is not rendered ahead until its window ends (admit.ts). In Lambda the
 * container may be frozen while that render runs on; past its deadline the pool replaces the
 * browser, so the next request of that container may wait for a relaunch.
 */
export interface PlanMemory {
  /** Notes whether the admitted workspace's plan stops at its page limit (read on the next request). */
  remember(workspace: Workspace): void;
  /** True only for a workspace last admitted here on a plan that never stops. */
  neverStops(workspaceId: string): boolean;
}

/** A container's plan memory (part of its SyncMemory, sync-memory.ts), empty. */
export function planMemory(): PlanMemory {
  const planStops = new BoundedCache<string, boolean>({ maxBytes: 1 * MiB, maxEntries: 10_000 });
  return {
    remember(workspace) {
      try {
        planStops.set(workspace.id, planOf(workspace).stops, textBytes(workspace.id) + 8);
      } catch {
        planStops.delete(workspace.id); // no plan: generation reports it
      }
    },
    neverStops: (workspaceId) => planStops.get(workspaceId) === false,
  };
}

/** A prepared single of a workspace known not to stop, with its render started; else unchanged. */
export function renderAhead(
  prepared: PreparedSync,
  workspaceId: string,
  deps: Pick<SyncDeps, "renderer" | "budgetMs"> & { plans: PlanMemory },
): PreparedSync {
  if (prepared.request.mode !== "single" || !deps.plans.neverStops(workspaceId)) return prepared;
  return { ...prepared, rendered: renderAll(prepared, deps) };
}
