import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import type { KeptRecord } from "./record-chain.ts";
import { keptRecordSchema } from "./record-store.ts";

/* The records table's keys (README.md#key-design). */

export const TABLE = "records";
export const table = () => config().tables.records;
export const pk = (workspaceId: string) => `WS#${workspaceId}`;
export const seqKey = (seq: number) => `SEQ#${String(seq).padStart(12, "0")}`;
/** `#` and `%` escaped, so a number holding `#` cannot end the date key's part early. */
const keyPart = (text: string | undefined) => (text ?? "").replace(/%/g, "%25").replace(/#/g, "%23");
/** The largest `seq` a key can order: 12 digits, as in `seqKey`. */
const SEQ_MAX = 999_999_999_999;
/**
 * The `byDate` index's sort key: date, then number, then the chain place counted down, so records of one date
 * and number (a document and its corrections) come together, the newest kept first.
 */
export const dateKeyOf = (r: Pick<KeptRecord, "date" | "number" | "seq">) =>
  `${r.date}#${keyPart(r.number)}#${String(SEQ_MAX - r.seq).padStart(12, "0")}`;
/** The `byMonthAmount` index's partition: one workspace's one month. */
export const monthKeyOf = (workspaceId: string, date: string) => `WS#${workspaceId}#${date.slice(0, 7)}`;
/** Amounts as text that sorts as the numbers do: offset past every negative safe integer, 17 digits. */
export const amountText = (amount: number) =>
  String(BigInt(amount) + BigInt(Number.MAX_SAFE_INTEGER)).padStart(17, "0");
/** The `byMonthAmount` index's sort key: the amount, then the date key. */
export const amountKeyOf = (r: Pick<KeptRecord, "amount" | "date" | "number" | "seq">) =>
  `${amountText(r.amount)}#${dateKeyOf(r)}`;

/** A sealed record as its item of the records table (the bench writes its volume with it). */
export const recordItem = (record: KeptRecord): Record<string, unknown> => ({
  pk: pk(record.workspaceId),
  sk: seqKey(record.seq),
  dateKey: dateKeyOf(record),
  monthKey: monthKeyOf(record.workspaceId, record.date),
  amountKey: amountKeyOf(record),
  ...record,
});

export const decodeRecord = (item: Record<string, unknown>): KeptRecord =>
  decodeStoredItem(keptRecordSchema, TABLE, item);
