import { createHash } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import type { StoredEndpoint } from "./endpoint-store.ts";

/**
 * One webhook URL per workspace, held by a claim item (`WS#<workspace>` / `URL#<sha256 of the URL>`,
 * webhooks table) naming the endpoint that owns the URL. Taking a URL is one conditional put, so of
 * concurrent creates or updates to the same URL exactly one gets it, which a check of the endpoint list
 * alone cannot promise (two requests both see the URL free). dynalite has no transactions: the claim is
 * taken before the endpoint item is written and released after the endpoint let go of the URL.
 */

/** A claim left by a request that died between its claim and its endpoint write is taken over after this. */
export const STALE_CLAIM_MS = 60_000;

const table = () => config().tables.webhooks;
/** The URL as stored is the key (a request's `webhookUrl` must equal it exactly); hashed to bound the key size. */
const claimKey = (workspaceId: string, url: string) => ({
  pk: `WS#${workspaceId}`,
  sk: `URL#${createHash("sha256").update(url).digest("hex")}`,
});

/**
 * Takes `url` for `endpointId`. True when it is now (or already was) the endpoint's; false when another
 * endpoint holds it. A claim whose endpoint no longer has the URL and that is older than STALE_CLAIM_MS is
 * taken over (a crash between the steps must not block the URL for good).
 */
export async function claimUrl(
  workspaceId: string,
  url: string,
  endpointId: string,
  endpoints: () => Promise<StoredEndpoint[]>,
  clock: Clock,
): Promise<boolean> {
  const { ddb } = awsClients();
  const Key = claimKey(workspaceId, url);
  const Item = { ...Key, endpointId, url, claimedAt: clock.now().toISOString() };
  try {
    await ddb.send(new PutCommand({ TableName: table(), Item, ConditionExpression: "attribute_not_exists(pk)" }));
    return true;
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
  const held = (await ddb.send(new GetCommand({ TableName: table(), Key, ConsistentRead: true }))).Item as
    | { endpointId: string; claimedAt: string }
    | undefined;
  if (!held) return claimUrl(workspaceId, url, endpointId, endpoints, clock);
  if (held.endpointId === endpointId) return true;
  const owner = (await endpoints()).find((e) => e.endpointId === held.endpointId);
  const young = clock.now().getTime() - Date.parse(held.claimedAt) < STALE_CLAIM_MS;
  if (owner?.url === url || young) return false;
  try {
    await ddb.send(
      new PutCommand({
        TableName: table(),
        Item,
        ConditionExpression: "endpointId = :stale AND claimedAt = :at",
        ExpressionAttributeValues: { ":stale": held.endpointId, ":at": held.claimedAt },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Gives `url` up if `endpointId` holds it (a no-op otherwise). */
export async function releaseUrl(workspaceId: string, url: string, endpointId: string): Promise<void> {
  try {
    await awsClients().ddb.send(
      new DeleteCommand({
        TableName: table(),
        Key: claimKey(workspaceId, url),
        ConditionExpression: "endpointId = :id",
        ExpressionAttributeValues: { ":id": endpointId },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}
