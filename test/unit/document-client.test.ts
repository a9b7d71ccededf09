import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  ExecuteStatementCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDocumentClient, type DocumentSender } from "#shared/aws/document-client.ts";

const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));

/** The lean client and the SDK's document client on the same endpoint. */
function clients(endpoint: string): { lean: DocumentSender; sdk: DynamoDBDocumentClient } {
  const client = new DynamoDBClient({ region: "us-east-1", endpoint, credentials, maxAttempts: 1 });
  const sdk = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { lean: createDocumentClient({ client, fallback: sdk, region: "us-east-1", endpoint }), sdk };
}

describe("document client against dynalite: same answers as the SDK's document client", () => {
  let dir: string;
  let server: ReturnType<typeof dynalite>;
  let lean: DocumentSender;
  let sdk: DynamoDBDocumentClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "platen-docclient-"));
    server = dynalite({ path: dir, createTableMs: 0 });
    const port = await listen(server as unknown as Server);
    ({ lean, sdk } = clients(`http://127.0.0.1:${port}`));
    const raw = new DynamoDBClient({ region: "us-east-1", endpoint: `http://127.0.0.1:${port}`, credentials });
    for (const name of ["tab1", "tab2"]) {
      await raw.send(
        new CreateTableCommand({
          TableName: name,
          KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
          AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
          BillingMode: "PAY_PER_REQUEST",
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const item = { pk: "P", sk: "1", n: 42, big: 2 ** 40, s: "日本語", b: true, nul: null, list: [1, "x", { deep: ["y"] }], map: { a: { b: 1.5 } }, set: new Set(["a", "b"]), bin: new Uint8Array([1, 2]), gone: undefined };

  it("puts and gets nested values, sets, binary and numbers; undefined is dropped", async () => {
    await lean.send(new PutCommand({ TableName: "tab1", Item: item }));
    const viaLean = await lean.send(new GetCommand({ TableName: "tab1", Key: { pk: "P", sk: "1" }, ConsistentRead: true }));
    const viaSdk = await sdk.send(new GetCommand({ TableName: "tab1", Key: { pk: "P", sk: "1" }, ConsistentRead: true }));
    expect(viaLean.Item).toEqual(viaSdk.Item);
    expect(viaLean.Item).toMatchObject({ n: 42, big: 2 ** 40, s: "日本語", list: [1, "x", { deep: ["y"] }], map: { a: { b: 1.5 } } });
    expect(viaLean.Item).not.toHaveProperty("gone");
    expect(viaLean.$metadata.httpStatusCode).toBe(200);
    expect((await lean.send(new GetCommand({ TableName: "tab1", Key: { pk: "none", sk: "1" } }))).Item).toBeUndefined();
  });

  it("updates with ADD and a condition, returning the new values; a failed condition keeps its SDK name", async () => {
    const update = () =>
      lean.send(
        new UpdateCommand({
          TableName: "tab1",
          Key: { pk: "C", sk: "1" },
          UpdateExpression: "ADD #c :one SET tags = :tags",
          ConditionExpression: "attribute_not_exists(#c) OR #c < :limit",
          ExpressionAttributeNames: { "#c": "count" },
          ExpressionAttributeValues: { ":one": 1, ":limit": 2, ":tags": ["a", { b: 1 }] },
          ReturnValues: "ALL_NEW",
        }),
      );
    expect((await update()).Attributes).toEqual({ pk: "C", sk: "1", count: 1, tags: ["a", { b: 1 }] });
    expect((await update()).Attributes?.count).toBe(2);
    await expect(update()).rejects.toMatchObject({ name: "ConditionalCheckFailedException", $fault: "client", $metadata: { httpStatusCode: 400 } });
  });

  it("queries page by page with ExclusiveStartKey, like the SDK", async () => {
    for (let i = 0; i < 5; i++) await lean.send(new PutCommand({ TableName: "tab1", Item: { pk: "Q", sk: `k${i}`, i } }));
    const seen: number[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await lean.send(new QueryCommand({ TableName: "tab1", KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "Q" }, Limit: 2, ExclusiveStartKey: start }));
      seen.push(...(page.Items ?? []).map((x) => x.i as number));
      start = page.LastEvaluatedKey;
      if (start) expect(start).toMatchObject({ pk: "Q" });
    } while (start);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it("batch-writes across two tables, batch-gets them back and deletes", async () => {
    await lean.send(
      new BatchWriteCommand({
        RequestItems: {
          tab1: [{ PutRequest: { Item: { pk: "B", sk: "1", v: "one" } } }, { PutRequest: { Item: { pk: "B", sk: "2", v: "two" } } }],
          tab2: [{ PutRequest: { Item: { pk: "B", sk: "1", v: "other" } } }],
        },
      }),
    );
    const got = await lean.send(new BatchGetCommand({ RequestItems: { tab1: { Keys: [{ pk: "B", sk: "1" }, { pk: "B", sk: "2" }], ConsistentRead: true }, tab2: { Keys: [{ pk: "B", sk: "1" }] } } }));
    expect(got.Responses?.tab1?.map((x) => x.v).sort()).toEqual(["one", "two"]);
    expect(got.Responses?.tab2).toEqual([{ pk: "B", sk: "1", v: "other" }]);
    await lean.send(new BatchWriteCommand({ RequestItems: { tab1: [{ DeleteRequest: { Key: { pk: "B", sk: "2" } } }] } }));
    const deleted = await lean.send(new DeleteCommand({ TableName: "tab1", Key: { pk: "B", sk: "1" }, ReturnValues: "ALL_OLD" }));
    expect(deleted.Attributes).toEqual({ pk: "B", sk: "1", v: "one" });
    expect((await lean.send(new GetCommand({ TableName: "tab1", Key: { pk: "B", sk: "2" } }))).Item).toBeUndefined();
  });

  it("names DynamoDB's errors as the SDK does: missing table, invalid request", async () => {
    await expect(lean.send(new GetCommand({ TableName: "missing", Key: { pk: "x", sk: "y" } }))).rejects.toMatchObject({ name: "ResourceNotFoundException" });
    await expect(lean.send(new GetCommand({ TableName: "tab1", Key: { wrong: "x" } }))).rejects.toMatchObject({ name: "ValidationException" });
  });

  it("hands commands it does not speak itself (PartiQL) to the SDK's client", async () => {
    const statement = () => new ExecuteStatementCommand({ Statement: "SELECT * FROM tab1" });
    const viaSdk = await sdk.send(statement()).then(() => "ok", (e: Error) => e.name);
    expect(await lean.send(statement()).then(() => "ok", (e: Error) => e.name)).toBe(viaSdk);
  });
});

describe("document client on the wire: signing and retries", () => {
  let server: Server;
  let port: number;
  const seen: { headers: IncomingMessage["headers"]; body: string }[] = [];
  let answers: { status: number; body: object | string; headers?: Record<string, string> }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        const answer: (typeof answers)[number] = answers.shift() ?? { status: 200, body: {} };
        res.writeHead(answer.status, { "content-type": "application/x-amz-json-1.0", "x-amzn-requestid": `req-${seen.length}`, ...answer.headers });
        res.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
      });
    });
    port = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("signs with SigV4 exactly as AWS verifies it (checked by an independent implementation)", async () => {
    seen.length = 0;
    const { lean } = clients(`http://127.0.0.1:${port}`);
    await lean.send(new GetCommand({ TableName: "t", Key: { pk: "日本" } }));
    const { headers, body } = seen[0]!;
    expect(headers["x-amz-target"]).toBe("DynamoDB_20120810.GetItem");
    expect(JSON.parse(body)).toEqual({ TableName: "t", Key: { pk: { S: "日本" } } });
    expect(headers.authorization).toBe(expectedAuthorization(headers, body));
  });

  it("sends the very request body the SDK's document client sends, for every command it speaks", async () => {
    const { lean, sdk } = clients(`http://127.0.0.1:${port}`);
    const commands = [
      () => new PutCommand({ TableName: "t", Item: { pk: "p", n: 1.5, nested: { l: [1, { s: new Set(["a"]) }], gone: undefined }, bin: Buffer.from("hi") }, ConditionExpression: "attribute_not_exists(pk)" }),
      () => new UpdateCommand({ TableName: "t", Key: { pk: "p" }, UpdateExpression: "SET a = :a", ExpressionAttributeValues: { ":a": { x: [null, true] } }, ReturnValues: "ALL_NEW" }),
      () => new QueryCommand({ TableName: "t", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: { ":p": "p" }, ExclusiveStartKey: { pk: "p", sk: "s" }, Limit: 3 }),
      () => new DeleteCommand({ TableName: "t", Key: { pk: "p" }, ConditionExpression: "v = :v", ExpressionAttributeValues: { ":v": 2 } }),
      () => new BatchWriteCommand({ RequestItems: { t: [{ PutRequest: { Item: { pk: "a", m: { k: 1 } } } }, { DeleteRequest: { Key: { pk: "b" } } }], u: [{ PutRequest: { Item: { pk: "c" } } }] } }),
      () => new BatchGetCommand({ RequestItems: { t: { Keys: [{ pk: "a" }, { pk: "b" }], ConsistentRead: true, ProjectionExpression: "pk" } } }),
      () => new TransactWriteCommand({ TransactItems: [{ ConditionCheck: { TableName: "t", Key: { pk: "a" }, ConditionExpression: "n < :n", ExpressionAttributeValues: { ":n": 3 } } }, { Put: { TableName: "t", Item: { pk: "b", v: [1] } } }, { Update: { TableName: "t", Key: { pk: "c" }, UpdateExpression: "ADD n :one", ExpressionAttributeValues: { ":one": 1 } } }, { Delete: { TableName: "t", Key: { pk: "d" } } }] }),
    ];
    for (const command of commands) {
      seen.length = 0;
      await sdk.send(command() as never);
      await lean.send(command() as never);
      expect(seen).toHaveLength(2);
      expect(seen[1]!.headers["x-amz-target"]).toBe(seen[0]!.headers["x-amz-target"]);
      // A transaction goes through the SDK, which gives each call its own idempotency token.
      const [viaSdk, viaLean] = seen.map((s) => ({ ...JSON.parse(s.body), ClientRequestToken: Boolean(JSON.parse(s.body).ClientRequestToken) }));
      expect(viaLean).toEqual(viaSdk);
    }
  });

  it("retries 5xx and throttling, then answers; a client error is not retried", async () => {
    const { lean } = clients(`http://127.0.0.1:${port}`);
    seen.length = 0;
    answers = [{ status: 500, body: { __type: "com.amazonaws.dynamodb.v20120810#InternalServerError", message: "boom" } }, { status: 200, body: { Item: { pk: { S: "x" } } } }];
    const ok = await lean.send(new GetCommand({ TableName: "t", Key: { pk: "x" } }));
    expect(ok.Item).toEqual({ pk: "x" });
    expect(ok.$metadata.attempts).toBe(2);

    const throttled = { status: 400, body: { __type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", message: "slow down" } };
    answers = [throttled, throttled, throttled];
    seen.length = 0;
    await expect(lean.send(new GetCommand({ TableName: "t", Key: { pk: "x" } }))).rejects.toMatchObject({ name: "ProvisionedThroughputExceededException", message: "slow down", $metadata: { attempts: 3 } });
    expect(seen).toHaveLength(3);

    answers = [{ status: 400, body: { __type: "com.amazon.coral.validate#ValidationException", message: "bad key" } }];
    seen.length = 0;
    await expect(lean.send(new GetCommand({ TableName: "t", Key: { pk: "x" } }))).rejects.toMatchObject({ name: "ValidationException", message: "bad key" });
    expect(seen).toHaveLength(1);
  });
});

describe("document client on the wire: answers it must not retry, error names in every form", () => {
  let server: Server;
  let calls = 0;
  let answer: { status: number; body: string; headers?: Record<string, string> };
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        calls++;
        res.writeHead(answer.status, { "content-type": "application/x-amz-json-1.0", ...answer.headers });
        res.end(answer.body);
      });
    });
    await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const call = async (a: typeof answer) => {
    answer = a;
    calls = 0;
    const { lean } = clients(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const error = await lean.send(new UpdateCommand({ TableName: "t", Key: { pk: "x" }, UpdateExpression: "ADD n :one", ExpressionAttributeValues: { ":one": 1 } })).then(() => undefined, (e: Error) => e);
    return { error, calls };
  };

  it("a call that stays silent fails after the time-out and is not retried (DynamoDB may have applied it)", async () => {
    const silent = createServer(() => undefined); // reads the request, never answers
    let received = 0;
    silent.on("request", () => received++);
    const port = await listen(silent);
    try {
      const client = new DynamoDBClient({ region: "us-east-1", endpoint: `http://127.0.0.1:${port}`, credentials });
      const lean = createDocumentClient({ client, fallback: DynamoDBDocumentClient.from(client), region: "us-east-1", endpoint: `http://127.0.0.1:${port}`, timeoutMs: 200 });
      const update = new UpdateCommand({ TableName: "t", Key: { pk: "x" }, UpdateExpression: "ADD n :one", ExpressionAttributeValues: { ":one": 1 } });
      await expect(lean.send(update)).rejects.toMatchObject({ name: "TimeoutError" });
      expect(received).toBe(1);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("a 200 it cannot read is an error, never retried (the write may have been applied)", async () => {
    expect(await call({ status: 200, body: "<html>proxy</html>" })).toMatchObject({ error: { name: "DeserializationError", $metadata: { httpStatusCode: 200 } }, calls: 1 });
  });

  it("retries only the transient 5xx (500/502/503/504), like the SDK", async () => {
    expect(await call({ status: 501, body: "{}" })).toMatchObject({ error: { name: "Unknown", $fault: "server" }, calls: 1 });
    expect((await call({ status: 503, body: "{}" })).calls).toBe(3);
  });

  it("reads the error type from __type, code or x-amzn-errortype, without namespace or details", async () => {
    const cases: [typeof answer, string][] = [
      [{ status: 400, body: JSON.stringify({ __type: "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", message: "m" }) }, "ConditionalCheckFailedException"],
      [{ status: 400, body: JSON.stringify({ __type: "ConditionalCheckFailedException:http://internal.amazon.com/coral/", Message: "m" }) }, "ConditionalCheckFailedException"],
      [{ status: 400, body: JSON.stringify({ code: "ValidationException" }) }, "ValidationException"],
      [{ status: 400, body: "", headers: { "x-amzn-errortype": "ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.coral.service/" } }, "ResourceNotFoundException"],
    ];
    for (const [a, name] of cases) expect((await call(a)).error?.name).toBe(name);
  });
});

/** SigV4 (docs.aws.amazon.com, "Create a signed AWS API request") from scratch, for a POST to `/`. */
function expectedAuthorization(headers: IncomingMessage["headers"], body: string): string {
  const auth = String(headers.authorization);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)![1]!;
  const amzDate = String(headers["x-amz-date"]);
  const scope = `${amzDate.slice(0, 8)}/us-east-1/dynamodb/aws4_request`;
  const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
  const canonicalHeaders = signedHeaders
    .split(";")
    .map((h) => `${h}:${String(headers[h]).trim()}\n`)
    .join("");
  expect(signedHeaders.split(";")).toEqual(expect.arrayContaining(["host", "x-amz-date", "x-amz-target", "content-type"]));
  const canonical = ["POST", "/", "", canonicalHeaders, signedHeaders, sha(body)].join("\n");
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha(canonical)].join("\n");
  const hmac = (key: string | Buffer, s: string) => createHmac("sha256", key).update(s, "utf8").digest();
  const key = ["us-east-1", "dynamodb", "aws4_request"].reduce((k, part) => hmac(k, part), hmac(`AWS4${credentials.secretAccessKey}`, amzDate.slice(0, 8)));
  const signature = createHmac("sha256", key).update(toSign, "utf8").digest("hex");
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
