import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { Leases, RenderShare } from "./fair-share.ts";
import { LEASE_SHARDS, leaseItemKey } from "./lease-shards.ts";
import type { LeaseStore } from "./render-leases.ts";

const TableName = () => config().tables.usage;
/** A busy workspace's item stays (with its average) for an hour after its last lease; TTL removes an idle one. */
const ttl = (untilMs: number) => Math.ceil(untilMs / 1000) + 3600;

const shareOf = (item: Record<string, unknown> | undefined): RenderShare => ({
  leases: (item?.leases as Leases | undefined) ?? {},
  ...(item?.avgMs === undefined ? {} : { avgMs: item.avgMs as number }),
  ...(item?.avgAt === undefined ? {} : { avgAt: item.avgAt as number }),
});

/** The leases in the usage table, LEASE_SHARDS items per workspace (lease-shards.ts). */
export const dynamoLeaseStore: LeaseStore = {
  async read(workspaceId, shard) {
    const { Item } = await awsClients().ddb.send(
      new GetCommand({ TableName: TableName(), Key: leaseItemKey(workspaceId, shard), ConsistentRead: true }),
    );
    return shareOf(Item);
  },
  async readAll(workspaceId) {
    const keys = Array.from({ length: LEASE_SHARDS }, (_, k) => leaseItemKey(workspaceId, k));
    const byPk = new Map<string, Record<string, unknown>>();
    // One BatchGetItem; whatever it leaves unprocessed is read again.
    let pending: Record<string, unknown>[] = keys;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(attempt, 5)));
      const out = await awsClients().ddb.send(
        new BatchGetCommand({ RequestItems: { [TableName()]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of out.Responses?.[TableName()] ?? []) byPk.set(item.pk as string, item);
      pending = (out.UnprocessedKeys?.[TableName()]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
    return keys.map((key) => shareOf(byPk.get(key.pk)));
  },
  async create(workspaceId, shard, tokens, untilMs) {
    try {
      await awsClients().ddb.send(
        new PutCommand({
          TableName: TableName(),
          Item: {
            ...leaseItemKey(workspaceId, shard),
            leases: Object.fromEntries(tokens.map((t) => [t, untilMs])),
            expiresAt: ttl(untilMs),
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  },
  async add(workspaceId, shard, tokens, untilMs, cap) {
    // All the leases or none: only while the item holds at most `cap` minus them.
    const update = () =>
      awsClients().ddb.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: leaseItemKey(workspaceId, shard),
          UpdateExpression: `SET ${tokens.map((_, i) => `leases.#t${i} = :until`).join(", ")}, expiresAt = :ttl`,
          ConditionExpression: "size(leases) <= :max",
          ExpressionAttributeNames: Object.fromEntries(tokens.map((t, i) => [`#t${i}`, t])),
          ExpressionAttributeValues: { ":until": untilMs, ":ttl": ttl(untilMs), ":max": cap - tokens.length },
        }),
      );
    try {
      await update().catch(async (err: unknown) => {
        if (!isConditionalCheckFailed(err)) throw err;
        // No item yet: create it empty (unless another render just did), then take the lease.
        await createEmpty(workspaceId, shard, untilMs);
        await update();
      });
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  },
  async prune(workspaceId, shard, expired) {
    await Promise.all(
      Object.entries(expired).map(([token, until]) =>
        awsClients()
          .ddb.send(
            new UpdateCommand({
              TableName: TableName(),
              Key: leaseItemKey(workspaceId, shard),
              UpdateExpression: "REMOVE leases.#t",
              ConditionExpression: "leases.#t = :until",
              ExpressionAttributeNames: { "#t": token },
              ExpressionAttributeValues: { ":until": until },
            }),
          )
          .catch(ignoreConditionalCheckFailed),
      ),
    );
  },
  async end(workspaceId, shard, leases, average) {
    const kept = leases.flatMap((l, i) => (l.keepUntilMs === undefined ? [] : [i]));
    const removed = leases.flatMap((l, i) => (l.keepUntilMs === undefined ? [i] : []));
    const latest = Math.max(0, ...kept.map((i) => leases[i]!.keepUntilMs!));
    const sets = [
      ...kept.map((i) => `leases.#t${i} = :until${i}`),
      ...(kept.length ? ["expiresAt = :ttl"] : []),
      ...(average === undefined ? [] : ["avgMs = :avg", "avgAt = :at"]),
    ];
    const values = {
      ...Object.fromEntries(kept.map((i) => [`:until${i}`, leases[i]!.keepUntilMs])),
      ...(kept.length ? { ":ttl": ttl(latest) } : {}),
      ...(average === undefined ? {} : { ":avg": Math.round(average.avgMs), ":at": average.avgAt }),
    };
    const expression = [
      sets.length ? `SET ${sets.join(", ")}` : "",
      removed.length ? `REMOVE ${removed.map((i) => `leases.#t${i}`).join(", ")}` : "",
    ]
      .filter(Boolean)
      .join(" ");
    if (!expression) return;
    await awsClients()
      .ddb.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: leaseItemKey(workspaceId, shard),
          UpdateExpression: expression,
          // Only while the item is there: a lease's item vanished by TTL is not recreated without its leases map.
          ConditionExpression: "attribute_exists(leases)",
          ExpressionAttributeNames: Object.fromEntries(leases.map((l, i) => [`#t${i}`, l.token])),
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        }),
      )
      .catch(ignoreConditionalCheckFailed);
  },
  async raiseAverage(workspaceId, shards, average) {
    await Promise.all(
      shards.map((shard) =>
        awsClients()
          .ddb.send(
            new UpdateCommand({
              TableName: TableName(),
              Key: leaseItemKey(workspaceId, shard),
              UpdateExpression: "SET avgMs = :avg, avgAt = :at",
              // An item not written yet learns the average from the others when first used (render-leases.ts).
              ConditionExpression: "attribute_exists(leases) AND (attribute_not_exists(avgMs) OR avgMs < :avg)",
              ExpressionAttributeValues: { ":avg": Math.round(average.avgMs), ":at": average.avgAt },
            }),
          )
          .catch(ignoreConditionalCheckFailed),
      ),
    );
  },
};

/** Creates the lease item with no lease, unless it exists. */
async function createEmpty(workspaceId: string, shard: number, untilMs: number): Promise<void> {
  await awsClients()
    .ddb.send(
      new PutCommand({
        TableName: TableName(),
        Item: { ...leaseItemKey(workspaceId, shard), leases: {}, expiresAt: ttl(untilMs) },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    )
    .catch(ignoreConditionalCheckFailed);
}

/**
 * Drops every workspace's leases (every item of each). Only for the local stack's start: its one
 * process was the whole render fleet, so the leases of the process before it belong to renders
 * that died with it (in AWS they run out on their own).
 */
export async function dropAllRenderLeases(): Promise<number> {
  let dropped = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await awsClients().ddb.send(
      new ScanCommand({
        TableName: TableName(),
        FilterExpression: "begins_with(pk, :p)",
        ExpressionAttributeValues: { ":p": "RENDERING#" },
        ProjectionExpression: "pk, sk",
        ExclusiveStartKey,
      }),
    );
    for (const key of page.Items ?? [])
      await awsClients().ddb.send(new DeleteCommand({ TableName: TableName(), Key: key }));
    dropped += page.Items?.length ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return dropped;
}
