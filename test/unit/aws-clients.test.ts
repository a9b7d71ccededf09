import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateTableCommand, type DynamoDBClient, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed, updateIf } from "#shared/aws/conditional-update.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { tables } from "#shared/definitions/tables.ts";

let dir: string;
let server: ReturnType<typeof dynalite>;
const TableName = "items";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "platen-clients-"));
  server = dynalite({ path: dir, createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  // Every table the configuration requires, from the one list of tables.
  Object.assign(process.env, Object.fromEntries(Object.values(tables).map((t) => [t.envVar, t.id])), {
    BUCKET_DESIGNS: "designs",
    BUCKET_FILES: "files",
    PLATEN_BASE_URL: "http://127.0.0.1/v1",
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
  });
  await awsClients().ddb.send(
    new CreateTableCommand({
      TableName,
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      AttributeDefinitions: [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "N" },
      ],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  // dynalite answers CreateTable while the table is still CREATING; under load the first
  // item call could land before it turns ACTIVE ("table not found").
  const client = awsClients().ddb as unknown as DynamoDBClient;
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 0.05, maxDelay: 0.2 }, { TableName });
});

afterAll(async () => {
  awsClients().ddb.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("the SDK clients", () => {
  it("are created once per container, with the SDK's document client and no logger middleware", () => {
    const clients = awsClients();
    expect(awsClients()).toBe(clients);
    expect(clients.ddb).toBeInstanceOf(DynamoDBDocumentClient);
    for (const client of [clients.ddb, clients.s3, clients.sqs]) {
      const names = client.middlewareStack.identify().map((entry) => entry.split(" ")[0]);
      expect(names).not.toContain("loggerMiddleware");
      expect(names).toContain("retryMiddleware");
    }
  });

  it("drop undefined attributes and return plain values (binary as bytes)", async () => {
    const bytes = new Uint8Array([0, 1, 254, 255]);
    await awsClients().ddb.send(
      new PutCommand({ TableName, Item: { pk: "a", sk: 1, gone: undefined, nested: { list: [1, "x"], bytes } } }),
    );
    const { Item } = await awsClients().ddb.send(
      new GetCommand({ TableName, Key: { pk: "a", sk: 1 }, ConsistentRead: true }),
    );
    expect(Item).toEqual({ pk: "a", sk: 1, nested: { list: [1, "x"], bytes } });
    expect(Item && "gone" in Item).toBe(false);
  });

  it("report a refused condition as false and recognise the SDK's exception by name", async () => {
    const bump = (expected: number) =>
      updateIf({
        TableName,
        Key: { pk: "c", sk: 1 },
        UpdateExpression: "SET v = :next",
        ConditionExpression: "attribute_not_exists(v) OR v = :expected",
        ExpressionAttributeValues: { ":next": expected + 1, ":expected": expected },
      });
    expect(await bump(0)).toBe(true);
    expect(await bump(0)).toBe(false);
    expect(await bump(1)).toBe(true);
    const refused = await awsClients()
      .ddb.send(
        new PutCommand({ TableName, Item: { pk: "c", sk: 1 }, ConditionExpression: "attribute_not_exists(pk)" }),
      )
      .catch((err: unknown) => err);
    expect(isConditionalCheckFailed(refused)).toBe(true);
    expect(isConditionalCheckFailed(new Error("other"))).toBe(false);
    expect(isConditionalCheckFailed(undefined)).toBe(false);
  });

  it("page through a query past DynamoDB's 1 MB page (queryAll)", async () => {
    const big = "x".repeat(100_000);
    for (let sk = 0; sk < 14; sk++)
      await awsClients().ddb.send(new PutCommand({ TableName, Item: { pk: "q", sk, big } }));
    const items = await queryAll({
      TableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": "q" },
      ProjectionExpression: "sk, big",
    });
    expect(items.map((i) => i.sk)).toEqual([...Array(14).keys()]);
  });
});
