import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import { sealedKeySchema } from "./key-sealing.ts";

/** What the management API shows of an identity: never its key. */
export const identityViewSchema = z.object({
  id: z.string(),
  label: z.string(),
  subject: z.string(),
  issuer: z.string(),
  serialNumber: z.string(),
  notBefore: z.string(),
  notAfter: z.string(),
  fingerprintSha256: z.string(),
  keyAlgorithm: z.string(),
  createdAt: z.string(),
});
export type IdentityView = z.infer<typeof identityViewSchema>;

/**
 * A signing identity as the workspaces table keeps it (partition `WS#<workspaceId>`, sort key
 * `SIGNID#<label>`, so a label is unique by construction): its view, the certificate chain (DER,
 * base64, signer first) and the private key sealed (key-sealing.ts).
 */
export const storedIdentitySchema = identityViewSchema.extend({
  workspaceId: z.string(),
  chain: z.array(z.string()).min(1),
  sealedKey: sealedKeySchema,
});
export type StoredIdentity = z.infer<typeof storedIdentitySchema>;

/** A workspace's signing identities; `dynamoIdentityStore` keeps them in the workspaces table. */
export interface IdentityStore {
  /** Oldest first. */
  list(workspaceId: string): Promise<StoredIdentity[]>;
  byLabel(workspaceId: string, label: string): Promise<StoredIdentity | undefined>;
  /** False when the label is taken. */
  insert(identity: StoredIdentity): Promise<boolean>;
  /** False when it was already gone. */
  delete(identity: StoredIdentity): Promise<boolean>;
}

const key = (workspaceId: string, label: string) => ({ pk: `WS#${workspaceId}`, sk: `SIGNID#${label}` });
const table = () => config().tables.workspaces;
const decode = (item: Record<string, unknown>) => decodeStoredItem(storedIdentitySchema, table(), item);

async function listIdentities(workspaceId: string): Promise<StoredIdentity[]> {
  const items: StoredIdentity[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await awsClients().ddb.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": `WS#${workspaceId}`, ":prefix": "SIGNID#" },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(out.Items ?? []).map(decode));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.label.localeCompare(b.label));
}

async function identityByLabel(workspaceId: string, label: string): Promise<StoredIdentity | undefined> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: key(workspaceId, label), ConsistentRead: true }),
  );
  return out.Item ? decode(out.Item) : undefined;
}

async function insertIdentity(identity: StoredIdentity): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new PutCommand({
        TableName: table(),
        Item: { ...key(identity.workspaceId, identity.label), ...identity },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

async function deleteIdentity(identity: StoredIdentity): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new DeleteCommand({
        TableName: table(),
        Key: key(identity.workspaceId, identity.label),
        ConditionExpression: "id = :id",
        ExpressionAttributeValues: { ":id": identity.id },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** The identity store over the workspaces table (items decoded with `storedIdentitySchema`). */
export const dynamoIdentityStore: IdentityStore = {
  list: listIdentities,
  byLabel: identityByLabel,
  insert: insertIdentity,
  delete: deleteIdentity,
};

/**
 * Whether the workspace has an identity of this label, on the deployment's store: what every publishing path
 * passes as PublishDeps.signingLabelExists. Here and not beside the key code (identities.ts): a publishing
 * function (the site, the design API) then loads no PKCS#12 or CMS code at its cold start.
 */
export const workspaceHasSigningLabel = async (workspaceId: string, labelName: string): Promise<boolean> =>
  (await dynamoIdentityStore.byLabel(workspaceId, labelName)) !== undefined;
