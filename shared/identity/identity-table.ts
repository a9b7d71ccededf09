import { config } from "#shared/aws/config.ts";
import { queryAll } from "#shared/aws/query-all.ts";

/** Every item of the identity table under `pk` whose sort key starts with `prefix`. */
export const itemsUnder = (pk: string, prefix: string): Promise<Record<string, unknown>[]> =>
  queryAll({
    TableName: config().tables.identity,
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: { ":pk": pk, ":prefix": prefix },
  });
