import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { admit, endLease, type Leases } from "./fair-share.ts";

/** A workspace's leases as stored, with the version every write checks. */
export interface LeaseBook {
  leases: Leases;
  /** 0 when the workspace holds no item yet. */
  version: number;
}

/**
 * Where the leases live. Every change is a read followed by a write conditioned on the
 * version read, so render containers anywhere agree on the count.
 */
export interface LeaseStore {
  read(workspaceId: string): Promise<LeaseBook>;
  /** Writes `leases` as version `expected + 1`; false when someone else wrote first. */
  write(workspaceId: string, leases: Leases, expected: number): Promise<boolean>;
}

/** Tries of a read-then-conditional-write before giving up (contention of one workspace's batch). */
const TRIES = 8;

const jitter = () => new Promise((r) => setTimeout(r, 5 + Math.random() * 25));

/**
 * Takes a render slot of the workspace for `token` until `untilMs`, unless it already holds
 * `cap` live ones. A refusal costs one consistent read and no write. Under contention
 * that outlasts the tries the answer is "no" (the message is deferred, never lost).
 */
export async function takeLease(store: LeaseStore, workspaceId: string, token: string, untilMs: number, nowMs: number, cap: number): Promise<boolean> {
  for (let i = 0; i < TRIES; i++) {
    const book = await store.read(workspaceId);
    const next = admit(book.leases, token, untilMs, nowMs, cap);
    if (!next) return false;
    if (await store.write(workspaceId, next, book.version)) return true;
    await jitter();
  }
  return false;
}

/**
 * Ends `token`'s lease: freed, or kept for the penalty when its render timed out. Returns
 * false when contention outlasted the tries; the lease then ends at its own expiry.
 */
export async function giveBackLease(store: LeaseStore, workspaceId: string, token: string, nowMs: number, timedOut: boolean, penaltyMs: number): Promise<boolean> {
  for (let i = 0; i < TRIES; i++) {
    const book = await store.read(workspaceId);
    if (await store.write(workspaceId, endLease(book.leases, token, nowMs, timedOut, penaltyMs), book.version)) return true;
    await jitter();
  }
  return false;
}

const leaseKey = (workspaceId: string) => ({ pk: `RENDERING#${workspaceId}`, sk: "LEASES" });

/**
 * The leases in the usage table, one item per workspace. The item's TTL is a minute past
 * its last lease, so an idle workspace leaves nothing behind.
 */
export const dynamoLeaseStore: LeaseStore = {
  async read(workspaceId) {
    const { Item } = await awsClients().ddb.send(new GetCommand({ TableName: config().tables.usage, Key: leaseKey(workspaceId), ConsistentRead: true }));
    return { leases: (Item?.leases as Leases | undefined) ?? {}, version: (Item?.version as number | undefined) ?? 0 };
  },
  async write(workspaceId, leases, expected) {
    const last = Math.max(Date.now(), ...Object.values(leases));
    try {
      await awsClients().ddb.send(
        new PutCommand({
          TableName: config().tables.usage,
          Item: { ...leaseKey(workspaceId), leases, version: expected + 1, expiresAt: Math.ceil(last / 1000) + 60 },
          ConditionExpression: expected === 0 ? "attribute_not_exists(pk)" : "version = :v",
          ExpressionAttributeValues: expected === 0 ? undefined : { ":v": expected },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  },
};
