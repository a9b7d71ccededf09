import { QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "./clients.ts";

/** Every item a DynamoDB query matches, following LastEvaluatedKey page by page. */
export async function queryAll(
  input: Omit<QueryCommandInput, "ExclusiveStartKey">,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await awsClients().ddb.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
