import { describe, expect, it } from "vitest";
import { PlatenError } from "#shared/errors/platen-error.ts";
import {
  exportRecords,
  type KeptRecord,
  queryText,
  RecordCursorInvalid,
  type RecordQuery,
  type RecordStore,
  SEARCH_PAGE_SIZE,
  sealRecord,
  searchPage,
} from "#shared/records/index.ts";
import { dateKeyOf } from "#shared/records/record-keys.ts";

const fieldsOf = (n: number, date: string, number = `INV-${n}`) => ({
  recordId: `file-${n}`,
  workspaceId: "ws",
  type: "invoice" as const,
  date,
  amount: 1000 * n,
  currency: "JPY",
  counterparty: "株式会社サンプル",
  counterpartySearch: "株式会社サンプル",
  number,
  designId: "d",
  version: 1,
  requestId: "r",
  fileId: `file-${n}`,
  fileName: `請求書-${n}`,
  sha256: "0".repeat(64),
  createdAt: "2026-11-01T00:00:00.000Z",
});

/** `count` records of one workspace, on two dates: the first half in October, the rest in November. */
function kept(count: number): KeptRecord[] {
  const records: KeptRecord[] = [];
  for (let n = 1; n <= count; n++)
    records.push(sealRecord(fieldsOf(n, n <= count / 2 ? "2026-10-01" : "2026-11-01"), records.at(-1)));
  return records;
}

/** A RecordStore held in memory: the date range applies, pages by position, reads counted. */
function memoryStore(records: KeptRecord[]): RecordStore & { reads: number } {
  const sorted = [...records].sort((x, y) => (dateKeyOf(x) < dateKeyOf(y) ? -1 : 1));
  const store = {
    reads: 0,
    append: () => Promise.reject(new Error("not used")),
    find: async (_: string, id: string) => records.find((r) => r.recordId === id),
    recordCount: async () => records.length,
    chainHashAt: async (_: string, seq: number) => records.find((r) => r.seq === seq)?.chainHash,
    retentionYears: async () => 7 as const,
    lengthenRetention: async () => true,
    search: async (q: RecordQuery, { cursor, limit }: { cursor?: string; limit: number }) => {
      const matches = sorted.filter((r) => (!q.dateFrom || r.date >= q.dateFrom) && (!q.dateTo || r.date <= q.dateTo));
      const start = Number(cursor ?? 0);
      const page = matches.slice(start, start + limit);
      store.reads += page.length;
      return { records: page, ...(start + limit < matches.length && { next: String(start + limit) }) };
    },
  };
  return store;
}

const rowsOf = async (rows: AsyncIterable<KeptRecord>) => {
  const ids: string[] = [];
  for await (const r of rows) ids.push(r.recordId);
  return ids;
};

describe("an export's rows", () => {
  it("answers every match when the workspace has kept no more than the limit, reading them once", async () => {
    const store = memoryStore(kept(10));
    const rows = await exportRecords(store, { workspaceId: "ws" }, 10);
    expect(await rowsOf(rows)).toHaveLength(10);
    expect(store.reads).toBe(10);
  });

  it("answers a range within the limit when the workspace has kept more, after counting its matches", async () => {
    const store = memoryStore(kept(20));
    const rows = await exportRecords(store, { workspaceId: "ws", dateFrom: "2026-11-01" }, 10);
    expect(await rowsOf(rows)).toEqual(Array.from({ length: 10 }, (_, i) => `file-${11 + i}`));
  });

  it("refuses more matches than the limit before the first row, as 400 naming dateFrom in en and ja", async () => {
    const refusal = await exportRecords(memoryStore(kept(20)), { workspaceId: "ws" }, 10).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(PlatenError);
    const error = refusal as PlatenError;
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details).toEqual([
      {
        field: "dateFrom",
        text: {
          en: expect.stringContaining("more than 100,000 records match"),
          ja: expect.stringContaining("100,000 件を超えて"),
        },
      },
    ]);
  });
});

describe("a search page (the API's and the site's)", () => {
  it("answers SEARCH_PAGE_SIZE records and the cursor of the next, which answers the rest", async () => {
    const store = memoryStore(kept(SEARCH_PAGE_SIZE + 5));
    const first = await searchPage(store, { workspaceId: "ws" }, undefined);
    expect(first.records).toHaveLength(SEARCH_PAGE_SIZE);
    expect(first.next).toBeDefined();
    const second = await searchPage(store, { workspaceId: "ws" }, first.next);
    expect(second.records).toHaveLength(5);
    expect(new Set([...first.records, ...second.records]).size).toBe(SEARCH_PAGE_SIZE + 5);
    expect(second.next).toBeUndefined();
  });

  it("refuses a cursor the store did not make as 400 naming cursor, and passes any other failure on", async () => {
    const refusing = { ...memoryStore([]), search: () => Promise.reject(new RecordCursorInvalid()) };
    const refusal = await searchPage(refusing, { workspaceId: "ws" }, "forged").catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(PlatenError);
    expect((refusal as PlatenError).code).toBe("VALIDATION_FAILED");
    expect((refusal as PlatenError).details).toEqual([{ field: "cursor", text: queryText.cursor }]);
    const down = new Error("the table is unreachable");
    const failing = { ...memoryStore([]), search: () => Promise.reject(down) };
    await expect(searchPage(failing, { workspaceId: "ws" }, undefined)).rejects.toBe(down);
  });
});

describe("the search order", () => {
  it("puts records of one date and number together, the newest kept first, then the next number", () => {
    const records: KeptRecord[] = [];
    for (const [n, number] of [
      [1, "B-1"],
      [2, "A-1"],
      [3, "B-1"],
      [4, "A-1"],
      [5, "B-1"],
    ] as const)
      records.push(sealRecord(fieldsOf(n, "2026-11-01", number), records.at(-1)));
    records.push(sealRecord(fieldsOf(6, "2026-10-31", "Z-9"), records.at(-1)));
    const order = [...records].sort((x, y) => (dateKeyOf(x) < dateKeyOf(y) ? -1 : 1)).map((r) => r.recordId);
    expect(order).toEqual(["file-6", "file-4", "file-2", "file-5", "file-3", "file-1"]);
  });

  it("keeps a number holding # or % inside its part of the key", () => {
    const [a, b] = [fieldsOf(1, "2026-11-01", "A#9"), fieldsOf(2, "2026-11-01", "A")];
    const [ka, kb] = [dateKeyOf({ ...a, seq: 1 }), dateKeyOf({ ...b, seq: 2 })];
    expect(ka.split("#")).toHaveLength(3);
    expect(kb < ka).toBe(true);
  });
});
