import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateTableCommand,
} from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheDynaliteTableDescriptions } from "#infra/local/dynalite-table-cache.ts";

let dir: string;
let server: ReturnType<typeof dynalite>;
let ddb: DynamoDBClient;

beforeAll(async () => {
  cacheDynaliteTableDescriptions();
  dir = mkdtempSync(join(tmpdir(), "platen-dynalite-"));
  server = dynalite({ path: dir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  ddb = new DynamoDBClient({
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** Creates a table and waits until it is ACTIVE (CreateTable answers while it is CREATING, as DynamoDB does). */
async function create(name: string, key: string): Promise<void> {
  await ddb.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: key, KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: key, AttributeType: "S" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  await untilActive(name);
}

async function untilActive(name: string): Promise<void> {
  while (
    (await ddb.send(new DescribeTableCommand({ TableName: name })).then(
      (d) => d.Table?.TableStatus,
      () => undefined,
    )) !== "ACTIVE"
  ) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Deletes a table and waits until it is gone. */
async function remove(name: string): Promise<void> {
  await ddb.send(new DeleteTableCommand({ TableName: name }));
  while (
    await ddb.send(new DescribeTableCommand({ TableName: name })).then(
      () => true,
      () => false,
    )
  )
    await new Promise((r) => setTimeout(r, 5));
}

describe("dynalite with table descriptions cached in memory", () => {
  it("follows every table change: create, update, delete and re-create with another key", async () => {
    await create("tbl", "pk");
    await ddb.send(new PutItemCommand({ TableName: "tbl", Item: { pk: { S: "a" }, v: { N: "1" } } }));
    expect((await ddb.send(new GetItemCommand({ TableName: "tbl", Key: { pk: { S: "a" } } }))).Item?.v).toEqual({
      N: "1",
    });

    await ddb.send(
      new UpdateTableCommand({
        TableName: "tbl",
        BillingMode: "PROVISIONED",
        ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 7 },
      }),
    );
    await untilActive("tbl");
    expect(
      (await ddb.send(new DescribeTableCommand({ TableName: "tbl" }))).Table?.ProvisionedThroughput?.ReadCapacityUnits,
    ).toBe(7);

    await remove("tbl");
    await expect(ddb.send(new GetItemCommand({ TableName: "tbl", Key: { pk: { S: "a" } } }))).rejects.toMatchObject({
      name: "ResourceNotFoundException",
    });

    await create("tbl", "id");
    await expect(ddb.send(new GetItemCommand({ TableName: "tbl", Key: { pk: { S: "a" } } }))).rejects.toMatchObject({
      name: "ValidationException",
    });
    await ddb.send(new PutItemCommand({ TableName: "tbl", Item: { id: { S: "b" } } }));
    expect((await ddb.send(new GetItemCommand({ TableName: "tbl", Key: { id: { S: "b" } } }))).Item).toEqual({
      id: { S: "b" },
    });
  });

  it("hands out a fresh copy on every read (dynalite decorates what it reads)", async () => {
    await create("other", "pk");
    const first = await ddb.send(new DescribeTableCommand({ TableName: "other" }));
    const second = await ddb.send(new DescribeTableCommand({ TableName: "other" }));
    expect(second.Table?.KeySchema).toEqual(first.Table?.KeySchema);
    expect(second.Table?.ItemCount).toBe(0);
  });
});
