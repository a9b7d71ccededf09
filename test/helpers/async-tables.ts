import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { tables } from "#shared/definitions/index.ts";
import { localTableName } from "#infra/local/resource-names.ts";
import type { RunningStack } from "./local-stack.ts";
import { stackDocumentClient } from "./stack-clients.ts";

export interface RequestRecords {
  job: { status?: string; settled?: number; total?: number } | undefined;
  /** File record count per status (queued, done, failed). */
  files: Record<string, number>;
}

/** Reads a request's job and file records straight from a stack's DynamoDB (stackDocumentClient). For failure messages. */
export async function readRequestRecords(stack: RunningStack, requestId: string): Promise<RequestRecords> {
  const ddb = stackDocumentClient(stack.dataDir);
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
