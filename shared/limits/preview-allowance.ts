import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { previewAllowances } from "./limits-config.ts";
import { limitsText } from "./limits-text.ts";
import { monthOf, planOf } from "./page-quota.ts";

/**
 * The port of the preview allowance (shared/limits/README.md#preview-allowance): a workspace's preview pages per
 * month, on an item of their own (never the generation pages' items). `add` with `max` is one conditional write: it
 * adds only while the month's count stays at or below `max`, and returns false, adding nothing, otherwise.
 */
export interface PreviewPageCounter {
  add(workspaceId: string, month: string, pages: number, max?: number): Promise<boolean>;
  used(workspaceId: string, month: string): Promise<number>;
}

export interface PreviewAllowanceDeps {
  clock: Clock;
  counter: PreviewPageCounter;
  workspace(workspaceId: string): Promise<Workspace | undefined>;
}

/** The month's preview pages of the workspace's plan; no plan is 403 PLAN_NOT_FOUND, as for generation. */
export function previewAllowanceOf(workspace: Workspace): number {
  planOf(workspace);
  return previewAllowances()[workspace.plan!] ?? 0;
}

/**
 * Runs a preview's `render` against the workspace's preview allowance: one page is reserved before it (a spent
 * allowance renders nothing), the rest of its pages after it, each a conditional write, so the month's count never
 * passes the allowance. A preview longer than what is left is refused after rendering and counts nothing; a render
 * that fails returns its page. Refused: 403 PREVIEW_ALLOWANCE_EXCEEDED.
 */
export async function countPreviewPages<T extends { pageCount: number }>(
  workspaceId: string,
  render: () => Promise<T>,
  deps: PreviewAllowanceDeps,
): Promise<T> {
  const workspace = await deps.workspace(workspaceId);
  if (!workspace) throw new PlatenError("PLAN_NOT_FOUND");
  const limit = previewAllowanceOf(workspace);
  const month = monthOf(deps.clock.now());
  if (!(await addWithin(deps.counter, workspaceId, month, 1, limit)))
    throw await allowanceSpent(deps.counter, workspaceId, month, limit);
  let rendered: T;
  try {
    rendered = await render();
  } catch (err) {
    await deps.counter.add(workspaceId, month, -1);
    throw err;
  }
  const rest = rendered.pageCount - 1;
  if (rest > 0 && !(await addWithin(deps.counter, workspaceId, month, rest, limit))) {
    await deps.counter.add(workspaceId, month, -1);
    throw await allowanceSpent(deps.counter, workspaceId, month, limit, rendered.pageCount);
  }
  return rendered;
}

/** Adds `pages` only if the month stays within `limit` (a count over the whole limit is never written). */
function addWithin(counter: PreviewPageCounter, workspaceId: string, month: string, pages: number, limit: number) {
  return pages > limit ? Promise.resolve(false) : counter.add(workspaceId, month, pages, limit - pages);
}

async function allowanceSpent(
  counter: PreviewPageCounter,
  workspaceId: string,
  month: string,
  limit: number,
  pages?: number,
): Promise<PlatenError> {
  const used = Math.min(limit, Math.max(0, await counter.used(workspaceId, month)));
  return new PlatenError("PREVIEW_ALLOWANCE_EXCEEDED", {
    vars: { used, limit },
    ...(pages !== undefined && {
      details: [
        {
          field: "pages",
          text: fillBoth(limitsText.previewPagesLeft, { pages, left: limit - used }),
        },
      ],
    }),
  });
}
