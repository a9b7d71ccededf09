import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { generateAppKey, hashAppKey } from "./app-key.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import type { Clock } from "#shared/clock.ts";
import { mayBeId, newId } from "#shared/ids.ts";
import * as z from "zod";

export const plans = ["free", "personal", "standard", "premium"] as const;
export type Plan = (typeof plans)[number];

/** The public fields of a workspace (the row, and the copy on each key item). */
export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /**
   * Absent plan → PLAN_NOT_FOUND at generation (see shared/errors/catalogue.ts). Any name, not only
   * `plans`: a row may name a plan the configuration does not have (ACTIVE_PLAN_NOT_FOUND, not a 500).
   */
  plan: z.string().optional(),
  appKeyRotatedAt: z.string(),
  createdAt: z.string(),
});
export type Workspace = z.infer<typeof workspaceSchema>;

/** A key item that carries its workspace's copy (key items written before the copy existed do not). */
const keyItemCopySchema = z.object({ workspace: workspaceSchema });

/**
 * The workspaces as authentication, limits and the admin CLI use them; `dynamoWorkspaces` keeps them in
 * the workspaces table (the row and one key item per valid application key), decoding with `workspaceSchema`.
 */
export interface WorkspaceStore {
  create(input: { name: string; plan?: Plan }, clock: Clock): Promise<{ workspace: Workspace; appKey: string }>;
  get(id: string): Promise<Workspace | undefined>;
  /** Undefined for an unknown (or rotated-out) key. */
  findByAppKey(appKey: string): Promise<Workspace | undefined>;
  updatePlan(id: string, plan: Plan): Promise<void>;
}

/** Key of a workspace row. */
export const workspaceKey = (id: string) => ({ pk: `WS#${id}`, sk: "WS" });
/** Key of an application-key item: its existence is what makes a key valid. */
export const appKeyKey = (hash: string) => ({ pk: `KEY#${hash}`, sk: "KEY" });

/**
 * Creates a workspace and its application key. dynalite has no transactions, so the
 * workspace row is written first: if the key write then fails, the workspace simply has
 * no usable key (never a key that authenticates a missing workspace). The key item carries
 * a copy of the workspace, so authentication is one read on the request path.
 */
export async function createWorkspace(
  input: { name: string; plan?: Plan },
  clock: Clock,
): Promise<{ workspace: Workspace; appKey: string }> {
  const { ddb } = awsClients();
  const TableName = config().tables.workspaces;
  const now = clock.now().toISOString();
  const workspace: Workspace = {
    id: newId(),
    name: input.name,
    plan: input.plan,
    appKeyRotatedAt: now,
    createdAt: now,
  };
  const appKey = generateAppKey();
  const hash = hashAppKey(appKey);
  await ddb.send(
    new PutCommand({
      TableName,
      Item: { ...workspaceKey(workspace.id), ...workspace, appKeyHash: hash },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
  await ddb.send(new PutCommand({ TableName, Item: { ...appKeyKey(hash), workspaceId: workspace.id, workspace } }));
  return { workspace, appKey };
}

export async function getWorkspace(id: string): Promise<Workspace | undefined> {
  if (!mayBeId(id)) return undefined;
  const { ddb } = awsClients();
  const out = await ddb.send(new GetCommand({ TableName: config().tables.workspaces, Key: workspaceKey(id) }));
  return out.Item ? toWorkspace(out.Item) : undefined;
}

/**
 * Resolves an application key to its workspace, or undefined for an unknown key. One
 * consistent read: the key item carries the workspace. (Key rotation must delete the old
 * key item — it is the only thing that makes a key valid.)
 */
export async function findWorkspaceByAppKey(appKey: string): Promise<Workspace | undefined> {
  const { ddb } = awsClients();
  const hash = hashAppKey(appKey);
  const key = await ddb.send(
    new GetCommand({ TableName: config().tables.workspaces, Key: appKeyKey(hash), ConsistentRead: true }),
  );
  if (key.Item?.workspace) return decodeStoredItem(keyItemCopySchema, config().tables.workspaces, key.Item).workspace;
  // Key items written before the copy existed: resolve through the workspace row.
  const workspaceId = key.Item?.workspaceId as string | undefined;
  if (!workspaceId) return undefined;
  const out = await ddb.send(
    new GetCommand({ TableName: config().tables.workspaces, Key: workspaceKey(workspaceId), ConsistentRead: true }),
  );
  // The workspace row names its current key: a key item left behind by a rotation is dead.
  if (!out.Item || out.Item.appKeyHash !== hash) return undefined;
  return toWorkspace(out.Item);
}

/** The public fields of a workspace row (or of the copy on a key item). */
export function toWorkspace(item: Record<string, unknown>): Workspace {
  return decodeStoredItem(workspaceSchema, config().tables.workspaces, item);
}

/**
 * Changes the plan (`workspace update --plan`); fails when the workspace is missing. The
 * row is the source of truth; the copy on the key item follows (re-running the command
 * repairs it if the second write failed).
 */
export async function updateWorkspacePlan(id: string, plan: Plan): Promise<void> {
  const { ddb } = awsClients();
  const TableName = config().tables.workspaces;
  const out = await ddb.send(
    new UpdateCommand({
      TableName,
      Key: workspaceKey(id),
      UpdateExpression: "SET #plan = :plan",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeNames: { "#plan": "plan" },
      ExpressionAttributeValues: { ":plan": plan },
      ReturnValues: "ALL_NEW",
    }),
  );
  const row = out.Attributes as Record<string, unknown> & { appKeyHash?: string };
  if (!row.appKeyHash) return;
  await ddb.send(
    new UpdateCommand({
      TableName,
      Key: appKeyKey(row.appKeyHash),
      UpdateExpression: "SET workspace = :ws",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":ws": toWorkspace(row) },
    }),
  );
}

/** The workspaces over the workspaces table. */
export const dynamoWorkspaces: WorkspaceStore = {
  create: createWorkspace,
  get: getWorkspace,
  findByAppKey: findWorkspaceByAppKey,
  updatePlan: updateWorkspacePlan,
};
