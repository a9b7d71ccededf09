import type * as z from "zod";

/**
 * A stored item that does not have the shape its store's schema says: the table holds data
 * the code cannot read. An internal error (the HTTP edge answers a generic 500 and logs it),
 * naming the table and the key so an operator can find the item; the zod issues are the cause.
 */
export class StoredItemError extends Error {
  readonly table: string;
  readonly key: Record<string, unknown>;

  constructor(table: string, key: Record<string, unknown>, cause: z.ZodError) {
    const where = Object.entries(key)
      .map(([name, value]) => `${name}=${String(value)}`)
      .join(", ");
    const what = cause.issues.map((i) => `${i.path.join(".") || "(item)"}: ${i.message}`).join("; ");
    super(`stored item in table ${table} (${where}) does not decode: ${what}`, { cause });
    this.name = "StoredItemError";
    this.table = table;
    this.key = key;
  }
}

/**
 * Decodes one item a store read from `table` with the store's schema (the truth of the item's
 * shape). Attributes the schema does not name (the keys `pk`/`sk`, `expiresAt` of TTL-only
 * items) are left out of the result. Throws StoredItemError, naming the item's key (`pk` and `sk` unless `keyNames` says otherwise).
 */
export function decodeStoredItem<S extends z.ZodType>(
  schema: S,
  table: string,
  item: Record<string, unknown>,
  keyNames: readonly string[] = ["pk", "sk"],
): z.infer<S> {
  // Without zod's compiled fast path: compiling it (`new Function` per object schema) cost a cold
  // request ~10 ms for the few items it reads; an item parses as fast either way.
  const decoded = schema.safeParse(item, { jitless: true });
  if (decoded.success) return decoded.data;
  const key = Object.fromEntries(keyNames.filter((k) => item[k] !== undefined).map((k) => [k, item[k]]));
  throw new StoredItemError(table, key, decoded.error);
}
