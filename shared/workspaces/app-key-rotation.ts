import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { generateAppKey, hashAppKey } from "./app-key.ts";
import type { AuditEntry, AuditRecorder } from "#shared/audit/audit-log.ts";
import { withdrawAudit } from "#shared/audit/audit-log.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { updateIf } from "#shared/aws/conditional-update.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { fillBoth, type TextTable } from "#shared/i18n/texts.ts";
import { appKeyKey, toWorkspace, workspaceKey } from "./workspace-store.ts";

/** OpenAPI rotateApplicationKey: the new key (shown once) and when it replaced the previous one. */
export interface AppKeyRotation {
  applicationKey: string;
  lastRotatedAt: string;
}

interface WorkspaceRow extends Record<string, unknown> {
  appKeyHash?: string;
  appKeyRotatedAt: string;
  /** Hashes whose key items a rotation still has to delete (survives a crash mid-rotation). */
  retiredAppKeyHashes?: string[];
}

/**
 * Replaces a workspace's application key (OpenAPI rotateApplicationKey).
 *
 * The workspace row is the lock: one conditional update moves `appKeyHash` from the key
 * read to the new one, so of two concurrent rotations exactly one wins; the loser gets 409
 * `APP_KEY_ROTATION_CONFLICT` carrying the winner's `lastRotatedAt` and its own key never
 * becomes valid.
 *
 * One live key per workspace under any interleaving: the new key item is written *before*
 * the row names it, never after. A rotation that reads the row therefore finds every key
 * item the row ever named already written, and its deletes of the retired hashes cannot be
 * overtaken by a late write of an older key (with the write after the update, a rotation
 * paused between its two steps wrote its item after the next rotation had deleted it, and
 * that key stayed valid for good). Until the update succeeds the new item is a key nobody
 * has seen; a lost rotation deletes it. The old items are deleted before the answer, so the
 * old key is refused by the very next request (admission reads the key item on every
 * request, consistently). The retired hashes are kept on the row until deleted, so a crash
 * between the steps is finished by the next rotation instead of leaving an old key alive.
 *
 * `audit` writes the audit entry just before the row update (the commit point): a failed
 * audit write leaves the old key working, and a lost rotation withdraws its entry, so the
 * caller gets the new key or nothing changes.
 */
export async function rotateAppKey(workspaceId: string, clock: Clock, audit?: AuditRecorder): Promise<AppKeyRotation> {
  const row = await readRow(workspaceId);
  if (!row) throw new Error(`workspace ${workspaceId} not found`);
  const applicationKey = generateAppKey();
  const hash = hashAppKey(applicationKey);
  const lastRotatedAt = clock.now().toISOString();
  const retired = [...new Set([...(row.retiredAppKeyHashes ?? []), ...(row.appKeyHash ? [row.appKeyHash] : [])])];
  const { ddb } = awsClients();
  const workspace = toWorkspace({ ...row, appKeyRotatedAt: lastRotatedAt });
  await ddb.send(new PutCommand({ TableName: table(), Item: { ...appKeyKey(hash), workspaceId, workspace } }));
  const dropNewKey = () => ddb.send(new DeleteCommand({ TableName: table(), Key: appKeyKey(hash) }));
  let entry: AuditEntry | undefined;
  try {
    entry = await audit?.();
  } catch (err) {
    await dropNewKey();
    throw err;
  }
  const won = await updateIf({
    TableName: table(),
    Key: workspaceKey(workspaceId),
    UpdateExpression: "SET appKeyHash = :hash, appKeyRotatedAt = :at, retiredAppKeyHashes = :retired",
    ConditionExpression: row.appKeyHash ? "appKeyHash = :previous" : "attribute_not_exists(appKeyHash)",
    ExpressionAttributeValues: {
      ":hash": hash,
      ":at": lastRotatedAt,
      ":retired": retired,
      ...(row.appKeyHash && { ":previous": row.appKeyHash }),
    },
  });
  if (!won) {
    await dropNewKey();
    if (entry) await withdrawAudit(entry);
    throw await conflict(workspaceId);
  }
  await Promise.all(retired.map((old) => ddb.send(new DeleteCommand({ TableName: table(), Key: appKeyKey(old) }))));
  // Only while our key is still current: a later rotation carries these hashes in its own list.
  await updateIf({
    TableName: table(),
    Key: workspaceKey(workspaceId),
    UpdateExpression: "REMOVE retiredAppKeyHashes",
    ConditionExpression: "appKeyHash = :hash",
    ExpressionAttributeValues: { ":hash": hash },
  });
  return { applicationKey, lastRotatedAt };
}

const table = () => config().tables.workspaces;

async function readRow(workspaceId: string): Promise<WorkspaceRow | undefined> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: workspaceKey(workspaceId), ConsistentRead: true }),
  );
  return out.Item as WorkspaceRow | undefined;
}

/** The texts of a rotation's details: in English the bare time, which clients read back. */
export const rotationText = {
  lastRotated: { en: "{at}", ja: "最後の更新は {at} です" },
} as const satisfies TextTable;

/** The loser of a race learns the winner's rotation time (message and `details[0]`). */
async function conflict(workspaceId: string): Promise<PlatenError> {
  const lastRotatedAt = (await readRow(workspaceId))?.appKeyRotatedAt ?? "";
  return new PlatenError("APP_KEY_ROTATION_CONFLICT", {
    vars: { lastRotatedAt },
    details: [{ field: "lastRotatedAt", text: fillBoth(rotationText.lastRotated, { at: lastRotatedAt }) }],
  });
}
