import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";

/**
 * Per-workspace delivery slots (shared/webhooks/README.md#fair-delivery-across-workspaces): a delivery attempt
 * holds a lease of its workspace while it posts; a workspace holding its cap of live leases has its other
 * deliveries sent back to the queue for a moment, so its slow receivers occupy its own slots and not the
 * dispatcher's. One item per workspace in the webhooks table; a lease is taken with a conditional write
 * (dynalite has no transactions), and a crashed dispatcher's lease simply runs out.
 */
export interface DispatchLeaseStore {
  /** Takes a slot for `token` until `untilMs` unless the workspace holds `cap` live ones; false then. */
  take(workspaceId: string, token: string, untilMs: number, nowMs: number, cap: number): Promise<boolean>;
  /** Frees the slot, or keeps it until `keepUntilMs` (a receiver time-out's charge to its workspace). */
  end(workspaceId: string, token: string, keepUntilMs?: number): Promise<void>;
}

type Leases = Record<string, number>;
const key = (workspaceId: string) => ({ pk: `DISPATCHING#${workspaceId}`, sk: "LEASES" });
const TableName = () => config().tables.webhooks;
const ttl = (untilMs: number) => Math.ceil(untilMs / 1000) + 3600;
const TRIES = 3;

export const dynamoDispatchLeases: DispatchLeaseStore = {
  async take(workspaceId, token, untilMs, nowMs, cap) {
    const { ddb } = awsClients();
    for (let i = 0; i < TRIES; i++) {
      const { Item } = await ddb.send(
        new GetCommand({ TableName: TableName(), Key: key(workspaceId), ConsistentRead: true }),
      );
      const leases = (Item?.leases as Leases | undefined) ?? {};
      const expired = Object.entries(leases).filter(([, until]) => until <= nowMs);
      if (Object.keys(leases).length - expired.length >= cap) return false;
      // Expired leases leave first, each only if unchanged, so the size condition below counts live ones.
      await Promise.all(
        expired.map(([t, until]) =>
          ddb
            .send(
              new UpdateCommand({
                TableName: TableName(),
                Key: key(workspaceId),
                UpdateExpression: "REMOVE leases.#t",
                ConditionExpression: "leases.#t = :until",
                ExpressionAttributeNames: { "#t": t },
                ExpressionAttributeValues: { ":until": until },
              }),
            )
            .catch(ignoreConditionalCheckFailed),
        ),
      );
      try {
        await ddb.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: key(workspaceId),
            UpdateExpression: Item
              ? "SET leases.#t = :until, expiresAt = :ttl"
              : "SET leases = :first, expiresAt = :ttl",
            ConditionExpression: Item ? "size(leases) < :cap" : "attribute_not_exists(pk)",
            ...(Item ? { ExpressionAttributeNames: { "#t": token } } : {}),
            ExpressionAttributeValues: {
              ...(Item ? { ":until": untilMs, ":cap": cap } : { ":first": { [token]: untilMs } }),
              ":ttl": ttl(untilMs),
            },
          }),
        );
        return true;
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
        // Another attempt took a slot (or created the item) meanwhile: read again.
      }
    }
    return false;
  },
  async end(workspaceId, token, keepUntilMs) {
    await awsClients()
      .ddb.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: key(workspaceId),
          UpdateExpression: keepUntilMs === undefined ? "REMOVE leases.#t" : "SET leases.#t = :keep",
          ConditionExpression: "attribute_exists(leases.#t)",
          ExpressionAttributeNames: { "#t": token },
          ...(keepUntilMs !== undefined && { ExpressionAttributeValues: { ":keep": keepUntilMs } }),
        }),
      )
      .catch(ignoreConditionalCheckFailed);
  },
};
