import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { config } from "#shared/aws/config.ts";
import type { FileRecord } from "#shared/generation/store/index.ts";

/** One person invited to one file (share type 02), by e-mail address. */
export interface Invitation {
  requestId: string;
  fileId: string;
  workspaceId: string;
  email: string;
  invitedBy: string;
  /** Not `createdAt`: invitations stay out of the files' `byWorkspace` index (output history). */
  invitedAt: string;
}

/** Addresses compare case-insensitively and without surrounding spaces. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** A plausible address: one @, no spaces, a dot in the domain, at most 254 characters (RFC 5321). */
/**
 * An address as people type them: `local@domain.tld`, no spaces, no second `@`, none of
 * the characters that only quoted or bracketed forms (RFC 5322) allow: `<>()[]\,;:"`.
 */
export const isEmailAddress = (email: string) =>
  email.length <= 254 && /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/.test(email);

// Invitations live beside the file records (same partition, `INVITE#` sort keys), so they
// share the file's lifetime: the same `expiresAt` removes them with the file.
const inviteKey = (requestId: string, fileId: string, email: string) => ({
  pk: `REQ#${requestId}`,
  sk: `INVITE#${fileId}#${normalizeEmail(email)}`,
});

export async function addInvitation(
  file: FileRecord,
  email: string,
  invitedBy: string,
  now: Date,
): Promise<Invitation> {
  const invitation: Invitation = {
    requestId: file.requestId,
    fileId: file.fileId,
    workspaceId: file.workspaceId,
    email: normalizeEmail(email),
    invitedBy,
    invitedAt: now.toISOString(),
  };
  await awsClients().ddb.send(
    new PutCommand({
      TableName: config().tables.files,
      Item: { ...inviteKey(file.requestId, file.fileId, email), ...invitation, expiresAt: file.expiresAt },
    }),
  );
  return invitation;
}

/** Removes an invitation; false when there was none. */
export async function removeInvitation(file: FileRecord, email: string): Promise<boolean> {
  const out = await awsClients().ddb.send(
    new DeleteCommand({
      TableName: config().tables.files,
      Key: inviteKey(file.requestId, file.fileId, email),
      ReturnValues: "ALL_OLD",
    }),
  );
  return Boolean(out.Attributes);
}

export async function listInvitations(file: FileRecord): Promise<Invitation[]> {
  const items = await queryAll({
    TableName: config().tables.files,
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: { ":pk": `REQ#${file.requestId}`, ":prefix": `INVITE#${file.fileId}#` },
    ConsistentRead: true,
  });
  return items
    .map(({ pk: _pk, sk: _sk, expiresAt: _e, ...rest }) => rest as unknown as Invitation)
    .sort((a, b) => a.email.localeCompare(b.email));
}

/** Whether the address was invited to this file (an invitation of another workspace's file never matches). */
export async function isInvited(file: FileRecord, email: string | undefined): Promise<boolean> {
  if (!email) return false;
  const out = await awsClients().ddb.send(
    new GetCommand({
      TableName: config().tables.files,
      Key: inviteKey(file.requestId, file.fileId, email),
      ConsistentRead: true,
    }),
  );
  return out.Item?.workspaceId === file.workspaceId;
}
