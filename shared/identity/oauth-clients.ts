import { createHash } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import type { Clock } from "#shared/clock.ts";
import { newId } from "#shared/ids.ts";
import { IdentityError } from "./identity-error.ts";
import { itemsUnder } from "./identity-table.ts";
import * as z from "zod";
import { ALL_SCOPES, type Scope } from "./scopes.ts";

/**
 * shared/identity/README.md#provider-settings: an OAuth client registered in one workspace (client credentials
 * act for that workspace).
 */
export const oauthClientSchema = z.object({
  clientId: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  /**
   * shared/identity/README.md#provider-settings `is_public`: PKCE only, no secret, never client credentials.
   */
  isPublic: z.boolean(),
  redirectUris: z.array(z.string()),
  allowedScopes: z.array(z.enum(ALL_SCOPES)),
  createdAt: z.string(),
});
export type OAuthClient = z.infer<typeof oauthClientSchema>;

/** The stored record: the secret only as a SHA-256 hash (it is long and random, like an appkey). */
export const storedOAuthClientSchema = oauthClientSchema.extend({ secretHash: z.string().optional() });
export type StoredOAuthClient = z.infer<typeof storedOAuthClientSchema>;

/**
 * The registered clients as the provider, the bearer check and the site use them;
 * `dynamoOAuthClients` keeps them in the identity table (a `CLIENT#` item and a pointer under its workspace).
 */
export interface OAuthClientStore {
  /** The secret of a confidential client is returned here once. */
  create(
    input: { workspaceId: string; name: string; isPublic: boolean; redirectUris: string[]; allowedScopes?: Scope[] },
    clock: Clock,
  ): Promise<{ client: OAuthClient; clientSecret?: string }>;
  get(clientId: string): Promise<StoredOAuthClient | undefined>;
  /** A workspace's clients, without secret hashes. */
  list(workspaceId: string): Promise<OAuthClient[]>;
  /** False when it did not exist. */
  delete(clientId: string): Promise<boolean>;
}

const clientKey = (clientId: string) => ({ pk: `CLIENT#${clientId}`, sk: "CLIENT" });
const workspaceClientKey = (workspaceId: string, clientId: string) => ({
  pk: `WS#${workspaceId}`,
  sk: `CLIENT#${clientId}`,
});

export const hashClientSecret = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex");

/**
 * Redirect URIs are absolute, without fragment; plain http only for loopback addresses
 * (RFC 8252 native apps and the local stack), https otherwise.
 */
export function checkRedirectUri(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new IdentityError(`redirect URI "${raw}" is not an absolute URL`);
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.hash || !(url.protocol === "https:" || (url.protocol === "http:" && loopback))) {
    throw new IdentityError(
      `redirect URI "${raw}" must be https (http only on 127.0.0.1/localhost) and have no #fragment`,
    );
  }
  return raw;
}

/** Registers a client; the secret of a confidential client is returned here once and stored hashed. */
export async function createOAuthClient(
  input: { workspaceId: string; name: string; isPublic: boolean; redirectUris: string[]; allowedScopes?: Scope[] },
  clock: Clock,
): Promise<{ client: OAuthClient; clientSecret?: string }> {
  if (!input.name.trim()) throw new IdentityError("the client needs a name");
  if (input.isPublic && input.redirectUris.length === 0)
    throw new IdentityError("a public client needs at least one --redirect-uri");
  const client: OAuthClient = {
    clientId: newId(24),
    workspaceId: input.workspaceId,
    name: input.name.trim(),
    isPublic: input.isPublic,
    redirectUris: [...new Set(input.redirectUris.map(checkRedirectUri))],
    allowedScopes: input.allowedScopes?.length ? input.allowedScopes : [...ALL_SCOPES],
    createdAt: clock.now().toISOString(),
  };
  const clientSecret = input.isPublic ? undefined : `pcs_${newId(43)}`;
  const stored: StoredOAuthClient = { ...client, ...(clientSecret && { secretHash: hashClientSecret(clientSecret) }) };
  const { ddb } = awsClients();
  const TableName = config().tables.identity;
  // The pointer first: a client row never exists that its workspace cannot list (and delete).
  await ddb.send(
    new PutCommand({
      TableName,
      Item: { ...workspaceClientKey(client.workspaceId, client.clientId), clientId: client.clientId },
    }),
  );
  await ddb.send(
    new PutCommand({
      TableName,
      Item: { ...clientKey(client.clientId), ...stored },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
  return { client, clientSecret };
}

/**
 * The stored client, or undefined (deleted clients are gone: their tokens stop working,
 * README.md#authentication).
 */
export async function getOAuthClient(clientId: string): Promise<StoredOAuthClient | undefined> {
  // A client_id comes from requests: one that cannot be an id (newId, base62) is no client, not a key
  // DynamoDB refuses (a 2,000-character client_id was the token endpoint's 500, found by the auth fuzz).
  if (!/^[0-9A-Za-z]{1,64}$/.test(clientId)) return undefined;
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: config().tables.identity, Key: clientKey(clientId), ConsistentRead: true }),
  );
  return out.Item ? decodeStoredItem(storedOAuthClientSchema, config().tables.identity, out.Item) : undefined;
}

export async function listOAuthClients(workspaceId: string): Promise<OAuthClient[]> {
  const pointers = await itemsUnder(`WS#${workspaceId}`, "CLIENT#");
  const clients = await Promise.all(pointers.map((p) => getOAuthClient(String(p.clientId))));
  return clients
    .filter((c): c is StoredOAuthClient => c !== undefined)
    .map(({ secretHash: _hidden, ...client }) => client);
}

/** Deletes a client; returns false when it did not exist. */
export async function deleteOAuthClient(clientId: string): Promise<boolean> {
  const { ddb } = awsClients();
  const TableName = config().tables.identity;
  const out = await ddb.send(new DeleteCommand({ TableName, Key: clientKey(clientId), ReturnValues: "ALL_OLD" }));
  if (!out.Attributes) return false;
  await ddb.send(
    new DeleteCommand({ TableName, Key: workspaceClientKey(String(out.Attributes.workspaceId), clientId) }),
  );
  return true;
}

/** The client store over the identity table (client items decoded with `storedOAuthClientSchema`). */
export const dynamoOAuthClients: OAuthClientStore = {
  create: createOAuthClient,
  get: getOAuthClient,
  list: listOAuthClients,
  delete: deleteOAuthClient,
};
