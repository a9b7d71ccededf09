import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed, updateIf } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import type { Clock } from "#shared/clock.ts";
import { newId } from "#shared/ids.ts";
import * as z from "zod";
import { IdentityError } from "./identity-error.ts";
import { hashPassword, spendPasswordCheck, verifyPassword } from "./passwords.ts";

/** A person who signs in on `{auth_url}`/`{site}`; roles live on memberships. */
export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  createdAt: z.string(),
  /** Sessions signed at or before this time (ms) are over: the user signed out (`endSessions`). */
  sessionsValidAfter: z.number().optional(),
});
export type User = z.infer<typeof userSchema>;

/**
 * The users as sign-in, sessions and the admin CLI use them; `dynamoUsers` keeps them in the identity
 * table (a `USER#` row with the password hash, and an `EMAIL#` pointer), decoding rows with `userSchema`.
 */
export interface UserStore {
  create(input: { email: string; password: string; name?: string }, clock: Clock): Promise<User>;
  get(id: string): Promise<User | undefined>;
  /** Undefined for an unknown address or a wrong password (at the same cost). */
  checkPassword(email: string, password: string): Promise<User | undefined>;
  endSessions(userId: string, clock: Clock): Promise<void>;
}

const userKey = (id: string) => ({ pk: `USER#${id}`, sk: "USER" });
const emailKey = (email: string) => ({ pk: `EMAIL#${email}`, sk: "EMAIL" });

/** E-mail addresses compare case-insensitively and without surrounding spaces. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;
const MIN_PASSWORD = 8;

/**
 * Creates a user. The e-mail item is written first with a condition, so two creations
 * with one address cannot both succeed; the user row follows (a failure between the two
 * leaves an address that resolves to nobody, which login treats as unknown).
 */
export async function createUser(
  input: { email: string; password: string; name?: string },
  clock: Clock,
): Promise<User> {
  const email = normalizeEmail(input.email);
  if (!EMAIL_SHAPE.test(email) || email.length > 254)
    throw new IdentityError(`"${input.email}" is not an e-mail address`);
  if (input.password.length < MIN_PASSWORD)
    throw new IdentityError(`the password must have at least ${MIN_PASSWORD} characters`);
  const user: User = {
    id: newId(),
    email,
    name: input.name?.trim() || email.split("@")[0]!,
    createdAt: clock.now().toISOString(),
  };
  const passwordHash = await hashPassword(input.password);
  const TableName = config().tables.identity;
  const { ddb } = awsClients();
  try {
    await ddb.send(
      new PutCommand({
        TableName,
        Item: { ...emailKey(email), userId: user.id },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
  } catch (err) {
    if (isConditionalCheckFailed(err))
      throw new IdentityError(`a user with e-mail ${email} exists already`, { cause: err });
    throw err;
  }
  await ddb.send(new PutCommand({ TableName, Item: { ...userKey(user.id), ...user, passwordHash } }));
  return user;
}

export async function getUser(id: string): Promise<User | undefined> {
  const out = await awsClients().ddb.send(new GetCommand({ TableName: config().tables.identity, Key: userKey(id) }));
  return out.Item ? toUser(out.Item) : undefined;
}

/**
 * The user with this e-mail and password, or undefined. An unknown address costs the same
 * hashing work as a wrong password, so the answer time tells nothing.
 */
export async function checkPassword(email: string, password: string): Promise<User | undefined> {
  const { ddb } = awsClients();
  const TableName = config().tables.identity;
  const pointer = await ddb.send(new GetCommand({ TableName, Key: emailKey(normalizeEmail(email)) }));
  const userId = pointer.Item?.userId as string | undefined;
  const row = userId ? (await ddb.send(new GetCommand({ TableName, Key: userKey(userId) }))).Item : undefined;
  if (!row) {
    await spendPasswordCheck(password);
    return undefined;
  }
  return (await verifyPassword(password, String(row.passwordHash))) ? toUser(row) : undefined;
}

/** A user row decoded with `userSchema` (the password hash and keys left out). */
function toUser(item: Record<string, unknown>): User {
  return decodeStoredItem(userSchema, config().tables.identity, item);
}

/**
 * Ends every login session of the user signed until now (sign-out): the session cookie is
 * a signed token, so the server keeps this one stamp instead of a list of sessions.
 */
export async function endSessions(userId: string, clock: Clock): Promise<void> {
  await updateIf({
    TableName: config().tables.identity,
    Key: userKey(userId),
    UpdateExpression: "SET sessionsValidAfter = :at",
    ConditionExpression: "attribute_exists(pk)",
    ExpressionAttributeValues: { ":at": clock.now().getTime() },
  });
}

/** The users over the identity table. */
export const dynamoUsers: UserStore = { create: createUser, get: getUser, checkPassword, endSessions };
