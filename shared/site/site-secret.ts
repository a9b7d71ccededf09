import { randomBytes } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";

const SECRET_KEY = { pk: "SITE#secret", sk: "cookie-hmac" };
let cached: Promise<Buffer> | undefined;

/**
 * The key that signs the site's own cookies (passcode grants, CSRF tokens). Created once
 * by whichever container needs it first (a conditional put: every container ends up with
 * the same key) and kept in the workspaces table, so it survives cold starts and restarts
 * of the local stack; never leaves the service.
 */
export function siteSecret(): Promise<Buffer> {
  cached ??= loadOrCreate().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function loadOrCreate(): Promise<Buffer> {
  const TableName = config().tables.workspaces;
  const read = async () =>
    (await awsClients().ddb.send(new GetCommand({ TableName, Key: SECRET_KEY, ConsistentRead: true }))).Item;
  const existing = await read();
  if (typeof existing?.secret === "string") return Buffer.from(existing.secret, "base64");
  try {
    const secret = randomBytes(32).toString("base64");
    await awsClients().ddb.send(
      new PutCommand({ TableName, Item: { ...SECRET_KEY, secret }, ConditionExpression: "attribute_not_exists(pk)" }),
    );
    return Buffer.from(secret, "base64");
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return Buffer.from(String((await read())?.secret), "base64"); // another container won the race
  }
}
