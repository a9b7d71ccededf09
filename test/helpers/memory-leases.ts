import {
  type FairShareConfig,
  type Leases,
  liveLeases,
  type RenderShare,
} from "#shared/generation/scheduling/fair-share.ts";
import { LEASE_SHARDS } from "#shared/generation/scheduling/lease-shards.ts";
import type { LeaseAverage, LeaseEnd, LeaseStore } from "#shared/generation/scheduling/index.ts";

/**
 * An in-memory LeaseStore with the DynamoDB items' semantics (render-lease-table.ts): one item per
 * workspace and shard, an atomic conditional add of one or more leases, conditional prunes, plain overwrites, an average
 * raised only upwards and only on an item that exists. Reads return copies. It counts the writes
 * per item, so a test can show the write pattern; `beforeAdd` lets a test race another container.
 */
/** The fair-share settings of the lease tests: 4 s of expected rendering in flight, at least 2 renders, 200 ms assumed before the first. */
export const LEASE_TEST_CONFIG: FairShareConfig = {
  workMs: 4000,
  minInFlight: 2,
  initialAvgMs: 200,
  timeoutPenaltyMs: 60_000,
  maxDeferSeconds: 20,
};

export class MemoryLeaseStore implements LeaseStore {
  readonly items = new Map<string, RenderShare>();
  /** Writes per item, keyed `workspace#shard`. */
  readonly writesByItem = new Map<string, number>();
  reads = 0;
  beforeAdd?: (workspaceId: string, shard: number) => void;

  get writes(): number {
    return [...this.writesByItem.values()].reduce((a, b) => a + b, 0);
  }

  /** A workspace as earlier renders left it: this average on every item, the leases one per item in turn. */
  seed(workspaceId: string, share: RenderShare): this {
    const leases = Object.entries(share.leases);
    for (let k = 0; k < LEASE_SHARDS; k++)
      this.items.set(`${workspaceId}#${k}`, {
        leases: Object.fromEntries(leases.filter((_, i) => i % LEASE_SHARDS === k)),
        ...(share.avgMs === undefined ? {} : { avgMs: share.avgMs, avgAt: 0 }),
      });
    return this;
  }

  /** Every lease of the workspace, whichever item holds it. */
  leasesOf(workspaceId: string): Leases {
    return Object.assign({}, ...this.sharesOf(workspaceId).map((s) => s.leases));
  }

  /** Live leases of the workspace at `nowMs`, over all its items. */
  held(workspaceId: string, nowMs: number): number {
    return Object.keys(liveLeases(this.leasesOf(workspaceId), nowMs)).length;
  }

  sharesOf(workspaceId: string): RenderShare[] {
    return Array.from({ length: LEASE_SHARDS }, (_, k) => this.items.get(`${workspaceId}#${k}`) ?? { leases: {} });
  }

  async read(workspaceId: string, shard: number): Promise<RenderShare> {
    this.reads += 1;
    return structuredClone(this.items.get(`${workspaceId}#${shard}`) ?? { leases: {} });
  }

  async readAll(workspaceId: string): Promise<RenderShare[]> {
    this.reads += LEASE_SHARDS;
    return structuredClone(this.sharesOf(workspaceId));
  }

  async create(workspaceId: string, shard: number, tokens: string[], untilMs: number): Promise<boolean> {
    this.beforeAdd?.(workspaceId, shard);
    if (this.items.has(`${workspaceId}#${shard}`)) return false;
    this.write(workspaceId, shard, { leases: Object.fromEntries(tokens.map((t) => [t, untilMs])) });
    return true;
  }

  async add(workspaceId: string, shard: number, tokens: string[], untilMs: number, cap: number): Promise<boolean> {
    this.beforeAdd?.(workspaceId, shard);
    const item = this.items.get(`${workspaceId}#${shard}`) ?? { leases: {} };
    if (Object.keys(item.leases).length + tokens.length > cap) return false;
    const added = Object.fromEntries(tokens.map((t) => [t, untilMs]));
    this.write(workspaceId, shard, { ...item, leases: { ...item.leases, ...added } });
    return true;
  }

  async prune(workspaceId: string, shard: number, expired: Leases): Promise<void> {
    const item = this.items.get(`${workspaceId}#${shard}`);
    if (!item) return;
    const leases = Object.fromEntries(Object.entries(item.leases).filter(([t, until]) => expired[t] !== until));
    this.write(workspaceId, shard, { ...item, leases });
  }

  async end(workspaceId: string, shard: number, ends: LeaseEnd[], average: LeaseAverage | undefined): Promise<void> {
    const item = this.items.get(`${workspaceId}#${shard}`);
    if (!item) return;
    const leases = { ...item.leases };
    for (const { token, keepUntilMs } of ends)
      if (keepUntilMs === undefined) delete leases[token];
      else leases[token] = keepUntilMs;
    this.write(workspaceId, shard, { ...item, leases, ...(average ?? {}) });
  }

  async raiseAverage(workspaceId: string, shards: number[], average: LeaseAverage): Promise<void> {
    for (const shard of shards) {
      const item = this.items.get(`${workspaceId}#${shard}`);
      if (!item || (item.avgMs !== undefined && item.avgMs >= average.avgMs)) continue;
      this.write(workspaceId, shard, { ...item, ...average });
    }
  }

  private write(workspaceId: string, shard: number, item: RenderShare): void {
    const key = `${workspaceId}#${shard}`;
    this.items.set(key, item);
    this.writesByItem.set(key, (this.writesByItem.get(key) ?? 0) + 1);
  }
}
