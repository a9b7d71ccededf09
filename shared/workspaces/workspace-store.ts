import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { generateAppKey, hashAppKey } from "#shared/auth/app-key.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { newId } from "#shared/ids.ts";

export const plans = ["free", "personal", "standard", "premium"] as const;
export type Plan = (typeof plans)[number];

export interface Workspace {
  id: string;
  name: string;
  /** Absent plan → PLAN_NOT_FOUND at generation (spec 7.3). */
  plan?: Plan;
  appKeyRotatedAt: string;
  createdAt: string;
}

const workspaceKey = (id: string) => ({ pk: `WS#${id}`, sk: "WS" });
const appKeyKey = (hash: string) => ({ pk: `KEY#${hash}`, sk: "KEY" });

/**
 * Creates a workspace and its application key. dynalite has no transactions, so the
 * key item is written first: if the workspace write then fails, the orphan key points
 * at no workspace and authenticates nothing (never a half-usable record).
 */
export async function createWorkspace(
  input: { name: string; plan?: Plan },
  clock: Clock,
): Promise<{ workspace: Workspace; appKey: string }> {
  const { ddb } = awsClients();
  const TableName = config().tables.workspaces;
  const now = clock.now().toISOString();
  const workspace: Workspace = { id: newId(), name: input.name, plan: input.plan, appKeyRotatedAt: now, createdAt: now };
  const appKey = generateAppKey();
  const hash = hashAppKey(appKey);
  await ddb.send(new PutCommand({ TableName, Item: { ...appKeyKey(hash), workspaceId: workspace.id } }));
  await ddb.send(
    new PutCommand({
      TableName,
      Item: { ...workspaceKey(workspace.id), ...workspace, appKeyHash: hash },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
  return { workspace, appKey };
}

export async function getWorkspace(id: string): Promise<Workspace | undefined> {
  const { ddb } = awsClients();
  const out = await ddb.send(new GetCommand({ TableName: config().tables.workspaces, Key: workspaceKey(id) }));
  return out.Item ? toWorkspace(out.Item) : undefined;
}

/** Resolves an application key to its workspace, or undefined for an unknown/rotated key. */
export async function findWorkspaceByAppKey(appKey: string): Promise<Workspace | undefined> {
  const { ddb } = awsClients();
  const hash = hashAppKey(appKey);
  const key = await ddb.send(
    new GetCommand({ TableName: config().tables.workspaces, Key: appKeyKey(hash), ConsistentRead: true }),
  );
  const workspaceId = key.Item?.workspaceId as string | undefined;
  if (!workspaceId) return undefined;
  const out = await ddb.send(
    new GetCommand({ TableName: config().tables.workspaces, Key: workspaceKey(workspaceId), ConsistentRead: true }),
  );
  // The workspace row names its current key: a key item left behind by a rotation is dead.
  if (!out.Item || out.Item.appKeyHash !== hash) return undefined;
  return toWorkspace(out.Item);
}

function toWorkspace(item: Record<string, unknown>): Workspace {
  const { id, name, plan, appKeyRotatedAt, createdAt } = item as unknown as Workspace;
  return { id, name, plan, appKeyRotatedAt, createdAt };
}

/** Changes the plan (`workspace update --plan`); fails when the workspace is missing. */
export async function updateWorkspacePlan(id: string, plan: Plan): Promise<void> {
  const { ddb } = awsClients();
  await ddb.send(
    new UpdateCommand({
      TableName: config().tables.workspaces,
      Key: workspaceKey(id),
      UpdateExpression: "SET #plan = :plan",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeNames: { "#plan": "plan" },
      ExpressionAttributeValues: { ":plan": plan },
    }),
  );
}
