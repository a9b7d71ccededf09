import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import {
  admitRender,
  endLease,
  type FairShareConfig,
  inFlightCap,
  type Leases,
  type RenderEnd,
  type RenderShare,
} from "./fair-share.ts";

/**
 * Where the leases live. Taking a lease is one atomic conditional write (no read-modify-
 * write race between the renders of a busy workspace); the average is a plain overwrite
 * (a lost update of a moving average is harmless).
 */
export interface LeaseStore {
  read(workspaceId: string): Promise<RenderShare>;
  /** Adds the lease unless the workspace already holds `cap` (expired ones included); false then. */
  add(workspaceId: string, token: string, untilMs: number, cap: number): Promise<boolean>;
  /** Removes these expired leases, each only if it is unchanged. */
  prune(workspaceId: string, expired: Leases): Promise<void>;
  /** Removes the lease, or keeps it until `keepUntilMs` (a time-out's penalty); records the average. */
  end(workspaceId: string, token: string, keepUntilMs: number | undefined, avgMs: number | undefined): Promise<void>;
}

/** Attempts when a lease was taken by another render between the read and the write. */
const TRIES = 3;

/**
 * Takes a render slot of the workspace for `token` until `untilMs`, unless it already holds
 * its cap of live leases. A refusal costs one consistent read and no write.
 */
export async function takeLease(
  store: LeaseStore,
  workspaceId: string,
  token: string,
  untilMs: number,
  nowMs: number,
  config: FairShareConfig,
): Promise<boolean> {
  for (let i = 0; i < TRIES; i++) {
    // The rule (fair-share.ts `admitRender`) on what was read; the conditional add makes it hold
    // against other containers taking leases meanwhile.
    const share = await store.read(workspaceId);
    const admitted = admitRender(share, token, untilMs, nowMs, config);
    if (!admitted) return false;
    const expired = Object.fromEntries(Object.entries(share.leases).filter(([t]) => !(t in admitted.leases)));
    if (Object.keys(expired).length) await store.prune(workspaceId, expired);
    if (await store.add(workspaceId, token, untilMs, inFlightCap(share, config))) return true;
  }
  return false;
}

/** Ends `token`'s lease: freed, or kept for the penalty when its render timed out; its time joins the average. */
export async function giveBackLease(
  store: LeaseStore,
  workspaceId: string,
  token: string,
  nowMs: number,
  end: RenderEnd,
  penaltyMs: number,
): Promise<void> {
  const share = await store.read(workspaceId);
  const next = endLease(
    { ...share, leases: { ...share.leases, [token]: Number.POSITIVE_INFINITY } },
    token,
    nowMs,
    end,
    penaltyMs,
  );
  await store.end(workspaceId, token, next.leases[token], next.avgMs);
}

const leaseKey = (workspaceId: string) => ({ pk: `RENDERING#${workspaceId}`, sk: "LEASES" });
const TableName = () => config().tables.usage;
/** A busy workspace's item stays (with its average) for an hour after its last lease; TTL removes an idle one. */
const ttl = (untilMs: number) => Math.ceil(untilMs / 1000) + 3600;

/** The shares in the usage table, one item per workspace. */
export const dynamoLeaseStore: LeaseStore = {
  async read(workspaceId) {
    const { Item } = await awsClients().ddb.send(
      new GetCommand({ TableName: TableName(), Key: leaseKey(workspaceId), ConsistentRead: true }),
    );
    const avgMs = Item?.avgMs as number | undefined;
    return { leases: (Item?.leases as Leases | undefined) ?? {}, ...(avgMs === undefined ? {} : { avgMs }) };
  },
  async add(workspaceId, token, untilMs, cap) {
    const update = () =>
      awsClients().ddb.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: leaseKey(workspaceId),
          UpdateExpression: "SET leases.#t = :until, expiresAt = :ttl",
          ConditionExpression: "size(leases) < :cap",
          ExpressionAttributeNames: { "#t": token },
          ExpressionAttributeValues: { ":until": untilMs, ":ttl": ttl(untilMs), ":cap": cap },
        }),
      );
    try {
      await update().catch(async (err: unknown) => {
        if (!isConditionalCheckFailed(err)) throw err;
        // No item yet: create it empty (unless another render just did), then take the lease.
        await createEmpty(workspaceId, untilMs);
        await update();
      });
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  },
  async prune(workspaceId, expired) {
    await Promise.all(
      Object.entries(expired).map(([token, until]) =>
        awsClients()
          .ddb.send(
            new UpdateCommand({
              TableName: TableName(),
              Key: leaseKey(workspaceId),
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
  async end(workspaceId, token, keepUntilMs, avgMs) {
    const sets = [
      ...(keepUntilMs === undefined ? [] : ["leases.#t = :until", "expiresAt = :ttl"]),
      ...(avgMs === undefined ? [] : ["avgMs = :avg"]),
    ];
    const values = {
      ...(keepUntilMs === undefined ? {} : { ":until": keepUntilMs, ":ttl": ttl(keepUntilMs) }),
      ...(avgMs === undefined ? {} : { ":avg": Math.round(avgMs) }),
    };
    const expression = [
      sets.length ? `SET ${sets.join(", ")}` : "",
      keepUntilMs === undefined ? "REMOVE leases.#t" : "",
    ]
      .filter(Boolean)
      .join(" ");
    await awsClients()
      .ddb.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: leaseKey(workspaceId),
          UpdateExpression: expression,
          // Only while the item is there: a lease's item vanished by TTL is not recreated without its leases map.
          ConditionExpression: "attribute_exists(leases)",
          ExpressionAttributeNames: { "#t": token },
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        }),
      )
      .catch(ignoreConditionalCheckFailed);
  },
};

/** Creates the workspace's item with no lease, unless it exists. */
async function createEmpty(workspaceId: string, untilMs: number): Promise<void> {
  await awsClients()
    .ddb.send(
      new PutCommand({
        TableName: TableName(),
        Item: { ...leaseKey(workspaceId), leases: {}, expiresAt: ttl(untilMs) },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    )
    .catch(ignoreConditionalCheckFailed);
}

/**
 * Drops every workspace's leases. Only for the local stack's start: its one process was the
 * whole render fleet, so the leases of the process before it belong to renders that died
 * with it (in AWS they run out on their own).
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
