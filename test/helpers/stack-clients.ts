import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { localEnvironment } from "#infra/local/resource-names.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";

/**
 * Points this test process's domain code at a running stack's emulators (its
 * runtime.json), for fixtures that would be slow through the CLI (e.g. 35 designs).
 */
export function useStackEmulators(dataDir: string): void {
  const runtime = JSON.parse(readFileSync(join(dataDir, "runtime.json"), "utf8")) as {
    endpoints: { dynamodb: string; aws: string };
    queueUrls: Record<string, string>;
    urls: { apiBaseUrl: string; authUrl: string; siteUrl: string };
  };
  Object.assign(
    process.env,
    localEnvironment({
      dynamodbEndpoint: runtime.endpoints.dynamodb,
      awsEndpoint: runtime.endpoints.aws,
      queueUrls: runtime.queueUrls,
      baseUrl: runtime.urls.apiBaseUrl,
      siteUrl: runtime.urls.siteUrl,
      authUrl: runtime.urls.authUrl,
    }),
  );
}

/** Every file record of a workspace, whatever its request (after useStackEmulators). */
export async function fileRecordsOfWorkspace(workspaceId: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await awsClients().ddb.send(
      new ScanCommand({
        TableName: config().tables.files,
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
