import { DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awsClients, s3, sqs } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed, updateIf } from "#shared/aws/conditional-update.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { startInProcessDynalite } from "../helpers/in-process-dynalite.ts";

let dynamo: Awaited<ReturnType<typeof startInProcessDynalite>>;
const TableName = "items";

beforeAll(async () => {
  // Every table the configuration requires is named in the environment; this test uses one of its own.
  dynamo = await startInProcessDynalite("platen-clients-");
  await dynamo.createTable({
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
  });
});

afterAll(() => dynamo.stop());

describe("the SDK clients", () => {
  it("are created once per container, with the SDK's document client and no logger middleware", async () => {
    const clients = awsClients();
    expect(awsClients()).toBe(clients);
    expect(clients.ddb).toBeInstanceOf(DynamoDBDocumentClient);
    // S3 and SQS load on first use: one client each, however many callers ask at once.
    const [s3a, s3b, sqsA] = await Promise.all([s3(), s3(), sqs()]);
    expect(s3b.client).toBe(s3a.client);
    expect(s3a.client).toBeInstanceOf(s3a.sdk.S3Client);
    expect((await sqs()).client).toBe(sqsA.client);
    for (const client of [clients.ddb, s3a.client, sqsA.client]) {
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
