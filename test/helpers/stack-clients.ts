import { readFileSync } from "node:fs";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { localEnvironment } from "#infra/local/resource-names.ts";
import { type Runtime, runtimePath } from "#infra/local/runtime-file.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";

/** A ready stack's runtime.json (endpoints, queues and URLs are written once it is ready). */
export const readyRuntime = (dataDir: string) =>
  JSON.parse(readFileSync(runtimePath(dataDir), "utf8")) as Required<Runtime>;

/** The environment a function of a running stack gets (emulator endpoints, resource names, URLs). */
export function stackEnvironment(dataDir: string): Record<string, string> {
  const runtime = readyRuntime(dataDir);
  return localEnvironment({
    dynamodbEndpoint: runtime.endpoints.dynamodb,
    awsEndpoint: runtime.endpoints.aws,
    queueUrls: runtime.queueUrls,
    baseUrl: runtime.urls.apiBaseUrl,
    siteUrl: runtime.urls.siteUrl,
    authUrl: runtime.urls.authUrl,
  });
}

/**
 * A document client of its own on a stack's DynamoDB: after a restart the emulators listen
 * on new ports, which the domain clients of this process (configured once) no longer reach.
 * The caller destroys it.
 */
export function stackDocumentClient(dataDir: string): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: "us-east-1",
      endpoint: readyRuntime(dataDir).endpoints.dynamodb,
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    }),
  );
}

/**
 * Points this test process's domain code at a running stack's emulators (its
 * runtime.json), for fixtures that would be slow through the CLI (e.g. 35 designs).
 */
export function useStackEmulators(dataDir: string): void {
  Object.assign(process.env, stackEnvironment(dataDir));
}

/** Every file record of a workspace, whatever its request (after useStackEmulators). */
export const fileRecordsOfWorkspace = (workspaceId: string) =>
  scanWorkspaceFiles(awsClients().ddb, config().tables.files, workspaceId);

/** Every file record of a workspace in `table`, scanned with `ddb` (consistent, page by page). */
export async function scanWorkspaceFiles(
  ddb: DynamoDBDocumentClient,
  table: string,
  workspaceId: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: "workspaceId = :w",
        ExpressionAttributeValues: { ":w": workspaceId },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
