import { DeleteCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import * as z from "zod";
import { MAX_ENDPOINTS_PER_WORKSPACE } from "./webhook-settings.ts";

/** shared/webhooks/README.md#registering-endpoints: every design, or only `targetDesignIds`. */
export const designFilterTypeSchema = z.enum(["all", "selected"]);
export type DesignFilterType = z.infer<typeof designFilterTypeSchema>;

/**
 * A registered webhook endpoint (see shared/webhooks/README.md#registering-endpoints) as stored in the
 * `webhooks` table. The signing secret is kept readable because the dispatcher signs with it (an HMAC key
 * cannot be hashed); `previousSecret` signs too until `previousSecretExpiresAt` (rotation overlap).
 */
export const webhookEndpointSchema = z.object({
  endpointId: z.string(),
  workspaceId: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  designFilterType: designFilterTypeSchema,
  targetDesignIds: z.array(z.string()),
  secret: z.string(),
  previousSecret: z.string().optional(),
  previousSecretExpiresAt: z.string().optional(),
  /**
   * OAuth client that created (or first updated) it; shared/webhooks/README.md#managing-endpoints-over-http.
   */
  ownerClientId: z.string().optional(),
  /** Why the dispatcher disabled it (e.g. a 410 answer); cleared when re-enabled. */
  disabledReason: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/**
 * An endpoint item. Each workspace has ten slots (`sk` = `ENDPOINT#00`…`#09`): creating
 * an endpoint is one conditional put into a free slot, so the limit of 10
 * (shared/limits/README.md#service-limits) holds exactly under concurrency without transactions (dynalite has
 * none) or a counter that can drift.
 */
export const storedEndpointSchema = webhookEndpointSchema.extend({
  slot: z.number().int(),
  /** Bumped by every replacement: the optimistic-concurrency check of updates. */
  revision: z.number().int(),
});
export type StoredEndpoint = z.infer<typeof storedEndpointSchema>;

/**
 * A workspace's webhook endpoints as the management rules, the dispatcher and the outbox use them;
 * `dynamoEndpointStore` keeps them in the webhooks table.
 */
export interface EndpointStore {
  /** Oldest first. */
  list(workspaceId: string): Promise<StoredEndpoint[]>;
  get(workspaceId: string, endpointId: string): Promise<StoredEndpoint | undefined>;
  /** False when every slot is taken (the limit). */
  insert(endpoint: WebhookEndpoint): Promise<boolean>;
  /** False on a lost race (the item changed since `previous` was read). */
  replace(previous: StoredEndpoint, next: WebhookEndpoint): Promise<boolean>;
  /** False when it was already gone. */
  delete(stored: StoredEndpoint): Promise<boolean>;
}

const pk = (workspaceId: string) => `WS#${workspaceId}`;
const slotKey = (slot: number) => `ENDPOINT#${String(slot).padStart(2, "0")}`;
const table = () => config().tables.webhooks;

/** Every endpoint of a workspace (at most ten items, one consistent query), oldest first. */
export async function listEndpointRecords(workspaceId: string): Promise<StoredEndpoint[]> {
  const out = await awsClients().ddb.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": pk(workspaceId), ":prefix": "ENDPOINT#" },
      ConsistentRead: true,
    }),
  );
  const items = (out.Items ?? []).map((item) => decodeStoredItem(storedEndpointSchema, table(), item));
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.slot - b.slot);
}

/** One endpoint of a workspace, or undefined. */
export async function getEndpointRecord(workspaceId: string, endpointId: string): Promise<StoredEndpoint | undefined> {
  return (await listEndpointRecords(workspaceId)).find((e) => e.endpointId === endpointId);
}

/**
 * Stores a new endpoint in the first free slot. A racing creation that takes the same
 * slot makes the conditional put fail; the slots are then read again. Returns false when
 * all ten slots are taken (the limit).
 */
export async function insertEndpointRecord(endpoint: WebhookEndpoint): Promise<boolean> {
  for (let tries = 0; tries < MAX_ENDPOINTS_PER_WORKSPACE + 2; tries++) {
    const taken = new Set((await listEndpointRecords(endpoint.workspaceId)).map((e) => e.slot));
    const slot = [...Array(MAX_ENDPOINTS_PER_WORKSPACE).keys()].find((s) => !taken.has(s));
    if (slot === undefined) return false;
    try {
      await awsClients().ddb.send(
        new PutCommand({
          TableName: table(),
          Item: { pk: pk(endpoint.workspaceId), sk: slotKey(slot), ...endpoint, slot, revision: 0 },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return true;
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
    }
  }
  throw new Error(`could not claim a webhook endpoint slot for workspace ${endpoint.workspaceId}`);
}

/**
 * Replaces an endpoint item if nobody changed it since it was read (optimistic: same
 * `revision`). Returns false on a lost race; callers read again and retry.
 */
export async function replaceEndpointRecord(previous: StoredEndpoint, next: WebhookEndpoint): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new PutCommand({
        TableName: table(),
        Item: {
          pk: pk(previous.workspaceId),
          sk: slotKey(previous.slot),
          ...next,
          slot: previous.slot,
          revision: previous.revision + 1,
        },
        ConditionExpression: "endpointId = :id AND revision = :revision",
        ExpressionAttributeValues: { ":id": previous.endpointId, ":revision": previous.revision },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Deletes an endpoint item (freeing its slot); false when it was already gone. */
export async function deleteEndpointRecord(stored: StoredEndpoint): Promise<boolean> {
  try {
    await awsClients().ddb.send(
      new DeleteCommand({
        TableName: table(),
        Key: { pk: pk(stored.workspaceId), sk: slotKey(stored.slot) },
        ConditionExpression: "endpointId = :id",
        ExpressionAttributeValues: { ":id": stored.endpointId },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** The endpoint store over the webhooks table (items decoded with `storedEndpointSchema`). */
export const dynamoEndpointStore: EndpointStore = {
  list: listEndpointRecords,
  get: getEndpointRecord,
  insert: insertEndpointRecord,
  replace: replaceEndpointRecord,
  delete: deleteEndpointRecord,
};
