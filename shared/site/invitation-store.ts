import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import type { FileRecord } from "#shared/generation/store/index.ts";
import * as z from "zod";

/** One person invited to one file (share type 02), by e-mail address: the stored item's shape (`expiresAt` aside). */
export const invitationSchema = z.object({
  requestId: z.string(),
  fileId: z.string(),
  workspaceId: z.string(),
  email: z.string(),
  invitedBy: z.string(),
  /** Not `createdAt`: invitations stay out of the files' `byWorkspace` index (output history). */
  invitedAt: z.string(),
});
export type Invitation = z.infer<typeof invitationSchema>;

/** The invitations of a file, as the share pages and file visits use them; `dynamoInvitationStore` keeps them in the files table. */
export interface InvitationStore {
  add(file: FileRecord, email: string, invitedBy: string, now: Date): Promise<Invitation>;
  /** False when there was none. */
  remove(file: FileRecord, email: string): Promise<boolean>;
  /** A file's invitations, by address. */
  list(file: FileRecord): Promise<Invitation[]>;
  isInvited(file: FileRecord, email: string | undefined): Promise<boolean>;
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
    .map((item) => decodeStoredItem(invitationSchema, config().tables.files, item))
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

/** The invitation store over the files table (items decoded with `invitationSchema`). */
export const dynamoInvitationStore: InvitationStore = {
  add: addInvitation,
  remove: removeInvitation,
  list: listInvitations,
  isInvited,
};
