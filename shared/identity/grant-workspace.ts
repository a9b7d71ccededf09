import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";

const key = (grantId: string) => ({ pk: `GrantWorkspace#${grantId}`, sk: "M" });

/**
 * README.md#authentication: a code-flow token is bound to the workspace the user chose at consent. The
 * choice is kept per grant (it outlives the consent screen: refreshed tokens carry it too).
 */
export async function saveGrantWorkspace(grantId: string, workspaceId: string, expiresAt: number): Promise<void> {
  await awsClients().ddb.send(
    new PutCommand({ TableName: config().tables.oauth, Item: { ...key(grantId), workspaceId, expiresAt } }),
  );
}

export async function grantWorkspace(grantId: string): Promise<string | undefined> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: config().tables.oauth, Key: key(grantId), ConsistentRead: true }),
  );
  return out.Item?.workspaceId as string | undefined;
}
