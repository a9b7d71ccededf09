/**
 * DynamoDB tables, defined once: the CDK stack (infra/stack) and the local runner
 * (infra/local) both build their tables from this list, so the two never drift.
 * Every table uses string keys `pk`/`sk` and the TTL attribute `expiresAt` (epoch seconds);
 * code always filters expired items itself because TTL deletes late (see
 * shared/generation/README.md#request-states-and-retention).
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey?: string;
}

export interface TableDefinition {
  /** Logical id; the physical name is `<prefix>-<id>` and reaches code through `envVar`. */
  id: string;
  envVar: string;
  purpose: string;
  partitionKey: "pk";
  sortKey: "sk";
  ttlAttribute: "expiresAt";
  indexes: IndexDefinition[];
}

const table = (id: string, envVar: string, purpose: string, indexes: IndexDefinition[] = []): TableDefinition => ({
  id,
  envVar,
  purpose,
  partitionKey: "pk",
  sortKey: "sk",
  ttlAttribute: "expiresAt",
  indexes,
});

export const tables = {
  workspaces: table("workspaces", "TABLE_WORKSPACES", "workspaces, plans and application-key hashes"),
  designs: table("designs", "TABLE_DESIGNS", "design heads (per workspace) and immutable versions"),
  requests: table("requests", "TABLE_REQUESTS", "generation job records (24 h after completion)", [
    // Sparse index: only in-flight requests carry `activeShard`, so the stuck-request sweep is cheap.
    { name: "active", partitionKey: "activeShard", sortKey: "createdAt" },
  ]),
  files: table("files", "TABLE_FILES", "generated file records, kept for the workspace retention", [
    // Output history (site): a workspace's files newest first, grouped into requests by the reader.
    { name: "byWorkspace", partitionKey: "workspaceId", sortKey: "createdAt" },
  ]),
  usage: table("usage", "TABLE_USAGE", "rate-limit windows, monthly page counters, idempotency keys"),
  webhooks: table("webhooks", "TABLE_WEBHOOKS", "webhook endpoints and their delivery log", [
    { name: "byDelivery", partitionKey: "deliveryId" },
  ]),
  oauth: table(
    "oauth",
    "TABLE_OAUTH",
    "oidc-provider models (grants, codes, sessions, tokens), login attempt counters",
  ),
  identity: table("identity", "TABLE_IDENTITY", "users, workspace memberships and registered OAuth clients"),
  records: table("records", "TABLE_RECORDS", "kept transaction records, their chain and retention setting (years)", [
    // Searches by date then number within a workspace (shared/records/README.md#key-design).
    { name: "byDate", partitionKey: "pk", sortKey: "dateKey" },
    // A month of one workspace by amount: a one-month search with an amount range reads only its matches.
    { name: "byMonthAmount", partitionKey: "monthKey", sortKey: "amountKey" },
  ]),
} as const satisfies Record<string, TableDefinition>;

export type TableId = keyof typeof tables;
