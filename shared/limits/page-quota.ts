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

/** A page admission: the month it was counted in, the pages reserved, the limit of a stopping plan. */
export interface PageAdmission {
  workspaceId: string;
  month: string;
  reserved: number;
  /** Set for plans that stop: no increase may take the month past it. */
  limit?: number;
}

/** spec 7.3: no plan at all → PLAN_NOT_FOUND (403); a plan that is not active → ACTIVE_PLAN_NOT_FOUND (404). */
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
export async function admitPages(workspace: Workspace, files: number, clock: Clock): Promise<PageAdmission> {
  const plan = planOf(workspace);
  const month = monthOf(clock.now());
  const limit = plan.stops ? plan.monthlyPages : undefined;
  await claimPages(workspace.id, month, files, limit);
  return { workspaceId: workspace.id, month, reserved: files, ...(limit !== undefined && { limit }) };
}

/** `ADD pages :n`, on a stopping plan only while the result stays within `limit` (DynamoDB has no arithmetic in conditions). */
const increase = (workspaceId: string, month: string, n: number, limit: number | undefined) => ({
  TableName: config().tables.usage,
  Key: usageKey(workspaceId, month),
  ...(limit !== undefined && n > 0 && { ConditionExpression: "attribute_not_exists(pages) OR pages <= :max" }),
  ExpressionAttributeValues: { ":n": n, ...(limit !== undefined && n > 0 && { ":max": limit - n }) },
});

/**
 * Adds `pages` to the month; on a stopping plan (`limit` given) only if the month stays
 * within the limit, else 403 PLAN_PAGE_LIMIT_EXCEEDED and nothing is added. `own`: pages
 * the caller counted already and returns on refusal (left out of the "used" it reports).
 */
export async function claimPages(workspaceId: string, month: string, pages: number, limit: number | undefined, own = 0): Promise<void> {
  if (pages <= 0) {
    if (pages < 0) await settlePages(workspaceId, month, pages);
    return;
  }
  if (limit !== undefined && pages > limit) throw await limitExceeded(workspaceId, month, limit, own);
  try {
    await awsClients().ddb.send(new UpdateCommand({ ...increase(workspaceId, month, pages, limit), UpdateExpression: "ADD pages :n" }));
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    throw await limitExceeded(workspaceId, month, limit!, own);
  }
}

async function limitExceeded(workspaceId: string, month: string, limit: number, own: number): Promise<PlatenError> {
  const used = Math.max(0, (await pagesUsed(workspaceId, month)) - own);
  return new PlatenError("PLAN_PAGE_LIMIT_EXCEEDED", { vars: { used, limit } });
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
