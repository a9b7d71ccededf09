import type { Renderer } from "#shared/render/renderer.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { renderAhead } from "./render-ahead.ts";
import type { SyncMemory } from "./sync-memory.ts";
import type { PreparedSync } from "./sync-generation.ts";

/** The caller as admission knows it before it settles (shared/http/admit.ts `Admission`). */
export interface EarlyCaller {
  /** The workspace of a key this container has admitted before: known at once. */
  knownWorkspaceId?: string;
  /** Another key's caller, once the key is read (its rate-limit write still to come). */
  authenticated?: Promise<{ workspace: Workspace }>;
}

/** What the early work does once it knows a workspace: parse, check and template (no writes). */
export interface EarlyTask {
  prepare(workspaceId: string): Promise<PreparedSync>;
  renderer: Renderer;
  /** The renders' budget, read when a render starts. */
  budgetMs(): number;
}

/** A sync request's work started while its admission runs, and how the admitted request takes it. */
export interface EarlyWork {
  /** Notes the admitted workspace's plan for the next request (render-ahead.ts); returns it. */
  admitted(workspace: Workspace): Workspace;
  /** The request prepared for the admitted workspace: the early work if it was for that workspace, else now. */
  preparedFor(workspace: Workspace): Promise<PreparedSync>;
}

/**
 * Parse, check, template (and for a single, render: render-ahead.ts) while admission runs: for a
 * key this container has admitted before, at once (admission's requests leave on the next turn
 * of the event loop, admit.ts, so their round trips run while Chromium renders); for another,
 * once the key is read (its rate-limit write then runs beside the work). Admission's errors
 * still come first (401, 429 before 400): the early work is used only once admission agrees on
 * the workspace, and its failure is dropped unseen otherwise. Without a caller (a request with an
 * Idempotency-Key) nothing starts early.
 */
export function startEarlyWork(caller: EarlyCaller | undefined, memory: SyncMemory, task: EarlyTask): EarlyWork {
  const start = (workspaceId: string) =>
    task
      .prepare(workspaceId)
      .then((prepared) =>
        renderAhead(prepared, workspaceId, { renderer: task.renderer, budgetMs: task.budgetMs(), plans: memory.plans }),
      );
  let earlyWorkspaceId = caller?.knownWorkspaceId;
  const early: Promise<PreparedSync> | undefined = !caller
    ? undefined
    : earlyWorkspaceId
      ? start(earlyWorkspaceId)
      : caller.authenticated?.then((admitted) => {
          memory.plans.remember(admitted.workspace);
          earlyWorkspaceId = admitted.workspace.id;
          return start(admitted.workspace.id);
        });
  early?.catch(() => undefined);
  return {
    admitted(workspace) {
      memory.plans.remember(workspace);
      return workspace;
    },
    preparedFor: (workspace) => (early && earlyWorkspaceId === workspace.id ? early : task.prepare(workspace.id)),
  };
}
