import { DeleteCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import { newId } from "#shared/ids.ts";
import * as z from "zod";

/**
 * Who made a change: an end user (through a client or a login session), a client alone, the operator's CLI,
 * or generation itself (a signing identity used for a file).
 */
export const auditActorSchema = z.object({
  // `appkey`: a workspace's application key, which may read records (shared/records/README.md).
  via: z.enum(["bearer", "session", "admin-cli", "generation", "appkey"]),
  userId: z.string().optional(),
  clientId: z.string().optional(),
});
export type AuditActor = z.infer<typeof auditActorSchema>;

/** What was changed (or, for secrets, read). */
export const auditActions = [
  "webhook-endpoint.create",
  "webhook-endpoint.update",
  "webhook-endpoint.delete",
  "webhook-endpoint.secret-regenerate",
  "webhook-endpoint.secret-read",
  "application-key.rotate",
  "file-invitation.add",
  "file-invitation.remove",
  "design.create",
  "design.update",
  "design.archive",
  "design.publish",
  "design.draft-save",
  "design.draft-delete",
  "template.share",
  "template.withdraw",
  "signing-identity.create",
  "signing-identity.delete",
  "signing-identity.use",
  // Reads of kept records (shared/records/README.md#audit): who searched, exported, verified or downloaded what.
  "records.search",
  "records.export",
  "records.verify",
  "record.download",
  "record-retention.lengthen",
] as const;
export type AuditAction = (typeof auditActions)[number];

/** One entry of a workspace's audit log: the stored item's shape (keys and `expiresAt` aside). */
export const auditEntrySchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  at: z.string(),
  actor: auditActorSchema,
  action: z.enum(auditActions),
  /**
   * The endpoint id for endpoint actions; `<requestId>/<fileId>` for invitations; the design id
   * (`<designId>@<version>` for a publish) for design actions; the template id for gallery actions; the identity id for signing-identity actions;
   * the record id for a record's download.
   */
  target: z.string().optional(),
  /** Extra facts of the change (the invited address); never a secret. */
  detail: z.record(z.string(), z.string()).optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/**
 * The audit log as its writers and readers use it; `dynamoAuditLog` keeps it in the workspaces table.
 * Writers that must not lose an entry call `record` after the change (or just before a secret-revealing commit).
 */
export interface AuditLog {
  record(entry: Omit<AuditEntry, "id" | "at">, clock: Clock): Promise<AuditEntry>;
  withdraw(entry: AuditEntry): Promise<void>;
  /** Newest first, at most `limit`. */
  list(workspaceId: string, clock: Clock, limit?: number): Promise<AuditEntry[]>;
}

/** Audit entries are kept one year (DynamoDB TTL; readers filter expired ones too). */
export const AUDIT_RETENTION_DAYS = 365;
const pk = (workspaceId: string) => `AUDIT#${workspaceId}`;

/**
 * Appends one entry to a workspace's audit log (workspaces table, partition
 * `AUDIT#<workspaceId>`, sorted by time). Called after the change succeeded, or just before it
 * commits for changes that reveal a one-time secret (AuditRecorder); a failed write fails the
 * request, because a management change must never go unrecorded silently.
 */
export async function recordAudit(entry: Omit<AuditEntry, "id" | "at">, clock: Clock): Promise<AuditEntry> {
  const now = clock.now();
  const full: AuditEntry = { id: newId(), at: now.toISOString(), ...entry };
  const expiresAt = Math.floor(now.getTime() / 1000) + AUDIT_RETENTION_DAYS * 86400;
  await awsClients().ddb.send(
    new PutCommand({
      TableName: config().tables.workspaces,
      Item: { pk: pk(entry.workspaceId), sk: `${full.at}#${full.id}`, ...full, expiresAt },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
  return full;
}

/**
 * Writes the audit entry of a change that reveals a one-time secret (key rotation, secret regeneration).
 * Those changes call it just *before* their commit point: if the audit write fails nothing has changed
 * yet, so the caller either gets the new secret or keeps the old one, never a 500 after the old one died.
 */
export type AuditRecorder = () => Promise<AuditEntry>;

/** Removes an entry written before a change that then did not happen (a lost race, a failed write). */
export async function withdrawAudit(entry: AuditEntry): Promise<void> {
  await awsClients().ddb.send(
    new DeleteCommand({
      TableName: config().tables.workspaces,
      Key: { pk: pk(entry.workspaceId), sk: `${entry.at}#${entry.id}` },
    }),
  );
}

/** A workspace's audit entries, newest first (at most `limit`, default 100). */
export async function listAudit(workspaceId: string, clock: Clock, limit = 100): Promise<AuditEntry[]> {
  const now = Math.floor(clock.now().getTime() / 1000);
  const entries: AuditEntry[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await awsClients().ddb.send(
      new QueryCommand({
        TableName: config().tables.workspaces,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": pk(workspaceId) },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of out.Items ?? []) {
      if (typeof item.expiresAt === "number" && item.expiresAt <= now) continue;
      entries.push(decodeStoredItem(auditEntrySchema, config().tables.workspaces, item));
    }
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && entries.length < limit);
  return entries.slice(0, limit);
}

/** The audit log over the workspaces table (items decoded with `auditEntrySchema`). */
export const dynamoAuditLog: AuditLog = { record: recordAudit, withdraw: withdrawAudit, list: listAudit };
