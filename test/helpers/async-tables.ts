import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { tables } from "#infra/definitions/index.ts";
import { localTableName } from "#infra/local/resource-names.ts";
import type { RunningStack } from "./local-stack.ts";

export interface RequestRecords {
  job: { status?: string; settled?: number; total?: number } | undefined;
  /** File record count per status (queued, done, failed). */
  files: Record<string, number>;
}

/**
 * Reads a request's job and file records straight from a stack's DynamoDB, with a client
 * of its own: after a restart the emulators listen on new ports, which the domain
 * clients of this process (configured once) no longer reach. For failure messages.
 */
export async function readRequestRecords(stack: RunningStack, requestId: string): Promise<RequestRecords> {
  const runtime = JSON.parse(readFileSync(join(stack.dataDir, "runtime.json"), "utf8")) as {
    endpoints: { dynamodb: string };
  };
  const ddb = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: "us-east-1",
      endpoint: runtime.endpoints.dynamodb,
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    }),
  );
  try {
    const job = await ddb.send(
      new GetCommand({
        TableName: localTableName(tables.requests.id),
        Key: { pk: `REQ#${requestId}`, sk: "JOB" },
        ConsistentRead: true,
      }),
    );
    const files = await ddb.send(
      new QueryCommand({
        TableName: localTableName(tables.files.id),
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": `REQ#${requestId}` },
        ConsistentRead: true,
      }),
    );
    const counts: Record<string, number> = {};
    for (const f of files.Items ?? []) counts[String(f.status)] = (counts[String(f.status)] ?? 0) + 1;
    const item = job.Item as (RequestRecords["job"] & { settledFiles?: Set<string> }) | undefined;
    return {
      job: item && { status: item.status, settled: item.settledFiles?.size ?? item.settled, total: item.total },
      files: counts,
    };
  } finally {
    ddb.destroy();
  }
}

/** The event items (`EVENT#…`) of a request, through the domain clients (`useStackEmulators` first). */
export async function eventsOf(requestId: string): Promise<{ sk: string; fileIds: string[] }[]> {
  const out = await awsClients().ddb.send(
    new QueryCommand({
      TableName: config().tables.requests,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": `REQ#${requestId}`, ":prefix": "EVENT#" },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as { sk: string; fileIds: string[] }[];
}
