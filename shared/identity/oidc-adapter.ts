import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { errors, type Adapter, type AdapterPayload } from "oidc-provider";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { systemClock } from "#shared/clock.ts";
import { clientMetadata } from "./client-metadata.ts";
import { getOAuthClient } from "./oauth-clients.ts";
import { modelKey } from "./oauth-keys.ts";

/** Pointer items: everything stemming from one grant (for revocation), sessions by uid, device codes by user code. */
const grantIndexKey = (grantId: string, model: string, id: string) => ({
  pk: `GRANT#${grantId}`,
  sk: `${model}#${id}`,
});
/** DynamoDB refuses a partition key over 2,048 bytes (a ValidationException, not an item that is missing). */
const fitsKey = (pk: string) => Buffer.byteLength(pk, "utf8") <= 2048;
const uidKey = (uid: string) => ({ pk: `UID#${uid}`, sk: "M" });
const userCodeKey = (code: string) => ({ pk: `USERCODE#${code}`, sk: "M" });

const nowSeconds = () => Math.floor(systemClock.now().getTime() / 1000);
const table = () => config().tables.oauth;

/**
 * oidc-provider's storage port over the `oauth` table: one item per model instance
 * (`<Model>#<id>`), the payload as a map, `expiresAt` for DynamoDB TTL. TTL deletes late,
 * so every read checks the expiry itself. Codes and refresh tokens are consumed with a
 * conditional write: of two concurrent redemptions exactly one succeeds, the other is
 * `invalid_grant`. Clients are not stored here: they are the registrations of the
 * identity table, read through {@link clientMetadata}.
 */
export class DynamoAdapter implements Adapter {
  constructor(private readonly model: string) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn ? nowSeconds() + expiresIn : undefined;
    const { ddb } = awsClients();
    const item = { ...modelKey(this.model, id), payload, expiresAt };
    await ddb.send(new PutCommand({ TableName: table(), Item: item }));
    if (payload.grantId)
      await ddb.send(
        new PutCommand({ TableName: table(), Item: { ...grantIndexKey(payload.grantId, this.model, id), expiresAt } }),
      );
    if (payload.uid)
      await ddb.send(new PutCommand({ TableName: table(), Item: { ...uidKey(payload.uid), id, expiresAt } }));
    if (payload.userCode)
      await ddb.send(new PutCommand({ TableName: table(), Item: { ...userCodeKey(payload.userCode), id, expiresAt } }));
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (this.model === "Client") {
      const client = await getOAuthClient(id);
      return client ? clientMetadata(client) : undefined;
    }
    // Ids come from requests (tokens, codes, cookies): one longer than any key DynamoDB takes is not found
    // (a 6,000-character access token was userinfo's 500, found by the auth fuzz).
    if (!fitsKey(modelKey(this.model, id).pk)) return undefined;
    const out = await awsClients().ddb.send(
      new GetCommand({ TableName: table(), Key: modelKey(this.model, id), ConsistentRead: true }),
    );
    if (!out.Item || isExpired(out.Item)) return undefined;
    return out.Item.payload as AdapterPayload;
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findByPointer(uidKey(uid));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findByPointer(userCodeKey(userCode));
  }

  /** Marks a code or refresh token used; the condition makes it single-use even under races. */
  async consume(id: string): Promise<void> {
    try {
      await awsClients().ddb.send(
        new UpdateCommand({
          TableName: table(),
          Key: modelKey(this.model, id),
          UpdateExpression: "SET payload.#consumed = :now",
          ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(payload.#consumed)",
          ExpressionAttributeNames: { "#consumed": "consumed" },
          ExpressionAttributeValues: { ":now": nowSeconds() },
        }),
      );
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      throw new errors.InvalidGrant(`${this.model.toLowerCase()} already used`);
    }
  }

  async destroy(id: string): Promise<void> {
    await awsClients().ddb.send(new DeleteCommand({ TableName: table(), Key: modelKey(this.model, id) }));
  }

  /** Deletes everything issued under a grant (refresh-token replay, code reuse, revocation). */
  async revokeByGrantId(grantId: string): Promise<void> {
    const pointers = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": `GRANT#${grantId}` },
    });
    // A grant has a handful of codes and tokens: plain deletes, the items first, then their pointers.
    const { ddb } = awsClients();
    await Promise.all(
      pointers.map((p) => ddb.send(new DeleteCommand({ TableName: table(), Key: { pk: String(p.sk), sk: "M" } }))),
    );
    await Promise.all(
      pointers.map((p) =>
        ddb.send(new DeleteCommand({ TableName: table(), Key: { pk: String(p.pk), sk: String(p.sk) } })),
      ),
    );
  }

  private async findByPointer(key: { pk: string; sk: string }): Promise<AdapterPayload | undefined> {
    if (!fitsKey(key.pk)) return undefined;
    const out = await awsClients().ddb.send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
    if (!out.Item || isExpired(out.Item)) return undefined;
    return this.find(String(out.Item.id));
  }
}

function isExpired(item: Record<string, unknown>): boolean {
  return typeof item.expiresAt === "number" && item.expiresAt <= nowSeconds();
}
