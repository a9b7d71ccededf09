import { QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { awsClients } from "#shared/aws/clients.ts";
import type { KeptRecord } from "./record-chain.ts";
import { amountText, dateKeyOf, decodeRecord, monthKeyOf, pk, seqKey, table } from "./record-keys.ts";
import { RecordCursorInvalid, type RecordPage, type RecordQuery } from "./record-store.ts";

const cursorSchema = z.object({ sk: z.string().startsWith("SEQ#"), dateKey: z.string() });

/** Items read per query page: filters apply after the read, so a narrow search reads several pages. */
const QUERY_PAGE = 500;

/**
 * A search (README.md#key-design). A date range within one month with an amount range reads the month's
 * `byMonthAmount` partition between the two amounts, so only matching amounts are read; when that finds more
 * than AMOUNT_PLAN_MAX items, or for any other search, the `byDate` index is read from the date range on.
 * Either way the answer is sorted by date then number, and the cursor names the last record answered.
 */
export async function searchRecords(
  query: RecordQuery,
  options: { cursor?: string; limit: number },
): Promise<RecordPage> {
  const after = options.cursor ? decodeCursor(options.cursor) : undefined;
  const byAmount = await amountPlan(query);
  if (byAmount) {
    const rest = after ? byAmount.filter((r) => dateKeyOf(r) > after.dateKey) : byAmount;
    const records = rest.slice(0, options.limit);
    const last = records.at(-1);
    return {
      records,
      ...(rest.length > options.limit && last && { next: encodeCursor(seqKey(last.seq), dateKeyOf(last)) }),
    };
  }
  return datePlan(query, options.limit, after);
}

/** Items the amount plan reads at most before it leaves the search to the date plan (a wide amount range). */
const AMOUNT_PLAN_MAX = 2000;

/** Every match of a one-month search with an amount range, sorted by date then number; undefined: not this plan. */
async function amountPlan(q: RecordQuery): Promise<KeptRecord[] | undefined> {
  const month = q.dateFrom?.slice(0, 7);
  if (q.amountMin === undefined && q.amountMax === undefined) return undefined;
  if (!month || month !== q.dateTo?.slice(0, 7)) return undefined;
  const { FilterExpression, ExpressionAttributeNames, ExpressionAttributeValues } = filtersOf(q, ["amount"]);
  const input: QueryCommandInput = {
    TableName: table(),
    IndexName: "byMonthAmount",
    KeyConditionExpression: "monthKey = :month AND amountKey BETWEEN :low AND :high",
    FilterExpression: ["dateKey BETWEEN :from AND :to", ...(FilterExpression ? [FilterExpression] : [])].join(" AND "),
    ...(ExpressionAttributeNames && { ExpressionAttributeNames }),
    ExpressionAttributeValues: {
      ...ExpressionAttributeValues,
      ":month": monthKeyOf(q.workspaceId, q.dateFrom!),
      ":low": amountText(q.amountMin ?? -Number.MAX_SAFE_INTEGER),
      ":high": `${amountText(q.amountMax ?? Number.MAX_SAFE_INTEGER)}#\uffff`,
      ":from": q.dateFrom,
      ":to": `${q.dateTo}#\uffff`,
    },
  };
  const found: KeptRecord[] = [];
  let read = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await awsClients().ddb.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    read += out.ScannedCount ?? 0;
    if (read > AMOUNT_PLAN_MAX) return undefined;
    found.push(...(out.Items ?? []).map(decodeRecord));
    start = out.LastEvaluatedKey;
  } while (start);
  return found.sort((x, y) => (dateKeyOf(x) < dateKeyOf(y) ? -1 : 1));
}

/**
 * The `byDate` index: the date range is the key condition (a month or a year reads only its own records), the
 * other conditions filter; pages are read until `limit` matches or the range ends.
 */
async function datePlan(
  query: RecordQuery,
  limit: number,
  after: z.infer<typeof cursorSchema> | undefined,
): Promise<RecordPage> {
  const input = searchInput(query);
  let start: Record<string, unknown> | undefined = after ? { pk: pk(query.workspaceId), ...after } : undefined;
  const records: KeptRecord[] = [];
  do {
    const out = await awsClients().ddb.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    for (const item of out.Items ?? []) {
      records.push(decodeRecord(item));
      if (records.length === limit) {
        const last = records.at(-1)!;
        const more = item !== out.Items?.at(-1) || out.LastEvaluatedKey !== undefined;
        return { records, ...(more && { next: encodeCursor(seqKey(last.seq), dateKeyOf(last)) }) };
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return { records };
}

function searchInput(q: RecordQuery): QueryCommandInput {
  const { FilterExpression, ExpressionAttributeNames, ExpressionAttributeValues } = filtersOf(q, []);
  return {
    TableName: table(),
    IndexName: "byDate",
    KeyConditionExpression: "pk = :pk AND dateKey BETWEEN :from AND :to",
    ExpressionAttributeValues: {
      ...ExpressionAttributeValues,
      ":pk": pk(q.workspaceId),
      ":from": q.dateFrom ?? "0000-01-01",
      // `#` sorts before every digit and letter, `\uffff` after: every key of the last day is inside.
      ":to": `${q.dateTo ?? "9999-12-31"}#\uffff`,
    },
    ...(ExpressionAttributeNames && { ExpressionAttributeNames }),
    ...(FilterExpression && { FilterExpression }),
    Limit: QUERY_PAGE,
  };
}

/** The conditions that are no key of the index read, as a filter expression (`skip`: those the key covers). */
function filtersOf(
  q: RecordQuery,
  skip: "amount"[],
): Pick<QueryCommandInput, "FilterExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"> {
  const filters: string[] = [];
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  const add = (expression: string, name: string, value: unknown) => {
    filters.push(expression);
    values[name] = value;
  };
  if (q.type) add("#type = :type", ":type", q.type);
  if (q.type) names["#type"] = "type";
  if (q.currency) add("currency = :currency", ":currency", q.currency);
  if (q.amountMin !== undefined && !skip.includes("amount")) add("amount >= :amountMin", ":amountMin", q.amountMin);
  if (q.amountMax !== undefined && !skip.includes("amount")) add("amount <= :amountMax", ":amountMax", q.amountMax);
  if (q.counterparty) add("contains(counterpartySearch, :cp)", ":cp", q.counterparty);
  if (q.number !== undefined) add("#number = :number", ":number", q.number);
  if (q.number !== undefined) names["#number"] = "number";
  return {
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length && { ExpressionAttributeNames: names }),
    ...(filters.length && { FilterExpression: filters.join(" AND ") }),
  };
}

/** The cursor names where the next page starts, within the caller's own workspace only (pk is not in it). */
const encodeCursor = (sk: string, dateKey: string) =>
  Buffer.from(JSON.stringify({ sk, dateKey })).toString("base64url");

function decodeCursor(cursor: string): z.infer<typeof cursorSchema> {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw new RecordCursorInvalid();
  }
}
