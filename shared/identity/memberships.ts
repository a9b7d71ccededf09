import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { mayBeId } from "#shared/ids.ts";
import { itemsUnder } from "./identity-table.ts";

/**
 * shared/webhooks/README.md#managing-endpoints-over-http: `admin` is the spec's ADMIN role, `read` its READ
 * role.
 */
export const ROLES = ["admin", "read"] as const;
export type Role = (typeof ROLES)[number];

export interface Membership {
  workspaceId: string;
  userId: string;
  role: Role;
}

/** The workspace side is the truth (role checks read it); the user side is a copy for "my workspaces". */
const byWorkspace = (workspaceId: string, userId: string) => ({ pk: `WS#${workspaceId}`, sk: `MEMBER#${userId}` });
const byUser = (userId: string, workspaceId: string) => ({ pk: `USER#${userId}`, sk: `MEMBER#${workspaceId}` });

/**
 * Adds a member or changes its role. The copy is written before the truth and removed
 * after it, so a failure half-way never grants a role that listing does not show.
 */
export async function putMembership(m: Membership): Promise<void> {
  const { ddb } = awsClients();
  const TableName = config().tables.identity;
  await ddb.send(new PutCommand({ TableName, Item: { ...byUser(m.userId, m.workspaceId), ...m } }));
  await ddb.send(new PutCommand({ TableName, Item: { ...byWorkspace(m.workspaceId, m.userId), ...m } }));
}

/**
 * Removes a membership; returns false when there was none. Tokens already issued lose their role at once
 * (README.md#authentication: 403).
 */
export async function removeMembership(workspaceId: string, userId: string): Promise<boolean> {
  const { ddb } = awsClients();
  const TableName = config().tables.identity;
  const out = await ddb.send(
    new DeleteCommand({ TableName, Key: byWorkspace(workspaceId, userId), ReturnValues: "ALL_OLD" }),
  );
  await ddb.send(new DeleteCommand({ TableName, Key: byUser(userId, workspaceId) }));
  return Boolean(out.Attributes);
}

/** The user's current role in the workspace (a consistent read: a removal counts at once). */
export async function findMembership(workspaceId: string, userId: string): Promise<{ role: Role } | undefined> {
  // The workspace comes from requests (the site's forms and paths).
  if (!mayBeId(workspaceId)) return undefined;
  const out = await awsClients().ddb.send(
    new GetCommand({
      TableName: config().tables.identity,
      Key: byWorkspace(workspaceId, userId),
      ConsistentRead: true,
    }),
  );
  return out.Item ? { role: out.Item.role as Role } : undefined;
}

/** The workspaces of a user, each with its role (consent offers these, README.md#authentication). */
export async function listMemberships(userId: string): Promise<Membership[]> {
  const items = await itemsUnder(`USER#${userId}`, "MEMBER#");
  return items.map(toMembership);
}

/** The members of a workspace. */
export async function listMembers(workspaceId: string): Promise<Membership[]> {
  const items = await itemsUnder(`WS#${workspaceId}`, "MEMBER#");
  return items.map(toMembership);
}

function toMembership(item: Record<string, unknown>): Membership {
  return { workspaceId: String(item.workspaceId), userId: String(item.userId), role: item.role as Role };
}
