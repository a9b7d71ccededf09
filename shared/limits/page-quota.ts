import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { type PlanLimits, planLimits } from "./limits-config.ts";

/** The UTC calendar month pages are counted in (spec 8). */
export const monthOf = (date: Date) => date.toISOString().slice(0, 7);

const usageKey = (workspaceId: string, month: string) => ({ pk: `PAGES#${workspaceId}`, sk: month });

/** A page admission: the month it was counted in and the pages reserved for it. */
export interface PageAdmission {
  workspaceId: string;
  month: string;
  reserved: number;
}

/** spec 7.3: no plan at all → PLAN_NOT_FOUND (403); a plan that is not active → ACTIVE_PLAN_NOT_FOUND (404). */
export function planOf(workspace: Workspace): PlanLimits {
  if (!workspace.plan) throw new PlatenError("PLAN_NOT_FOUND");
  const limits = planLimits()[workspace.plan];
  if (!limits) throw new PlatenError("ACTIVE_PLAN_NOT_FOUND");
  return limits;
}

/**
 * Reserves pages before acceptance (one per file; corrected by `settlePages` once the
 * real page count is known). The rule for stopping plans: a request is admitted only
 * while the month's counted pages are below the limit, and its reservation is added in
 * the same conditional write. Of concurrent requests at the edge, only one can cross the
 * limit, by at most its own pages; the rest get 403 PLAN_PAGE_LIMIT_EXCEEDED.
 */
export async function admitPages(workspace: Workspace, files: number, clock: Clock): Promise<PageAdmission> {
  const plan = planOf(workspace);
  const month = monthOf(clock.now());
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: usageKey(workspace.id, month),
        UpdateExpression: "ADD pages :n",
        ...(plan.stops && { ConditionExpression: "attribute_not_exists(pages) OR pages < :limit" }),
        ExpressionAttributeValues: { ":n": files, ...(plan.stops && { ":limit": plan.monthlyPages }) },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const used = await pagesUsed(workspace.id, month);
    throw new PlatenError("PLAN_PAGE_LIMIT_EXCEEDED", { vars: { used, limit: plan.monthlyPages } });
  }
  return { workspaceId: workspace.id, month, reserved: files };
}

/** Corrects a reservation by `delta` pages (real pages − reserved; −reserved when nothing was stored). */
export async function settlePages(workspaceId: string, month: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await awsClients().ddb.send(
    new UpdateCommand({
      TableName: config().tables.usage,
      Key: usageKey(workspaceId, month),
      UpdateExpression: "ADD pages :delta",
      ExpressionAttributeValues: { ":delta": delta },
    }),
  );
}

export async function pagesUsed(workspaceId: string, month: string): Promise<number> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: config().tables.usage, Key: usageKey(workspaceId, month), ConsistentRead: true }),
  );
  return Number(out.Item?.pages ?? 0);
}

/** `admin usage`: pages used, the plan's limit and the billable overage of a month. */
export async function usageReport(workspace: Workspace, month: string) {
  const used = await pagesUsed(workspace.id, month);
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
