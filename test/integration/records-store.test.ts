import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DeleteObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localBucketName } from "#infra/local/resource-names.ts";
import { awsClients, s3 } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import {
  addYears,
  allRecords,
  counterpartySearchForm,
  dynamoRecordStore,
  type KeptRecord,
  keepRecord,
  RecordCursorInvalid,
  type RecordFields,
  recordPdfKey,
  s3RecordPdfs,
  verifyRange,
} from "#shared/records/index.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";

let stack: SharedStack;
const store = () => dynamoRecordStore();
const pdfs = () => s3RecordPdfs();
const deps = () => ({ store: store(), pdfs: pdfs(), clock: systemClock });
const run = Date.now().toString(36);

const COUNTERPARTIES = ["株式会社サンプル", "ＡＢＣ商事", "Acme Trading", "山田工業"];
function fieldsOf(n: number): RecordFields {
  const counterparty = COUNTERPARTIES[n % COUNTERPARTIES.length]!;
  return {
    type: n % 5 === 0 ? "receipt" : "invoice",
    date: `2026-${String((n % 12) + 1).padStart(2, "0")}-${String((n % 28) + 1).padStart(2, "0")}`,
    amount: 1000 * n,
    currency: "JPY",
    counterparty,
    counterpartySearch: counterpartySearchForm(counterparty),
    number: `INV-${String(n).padStart(4, "0")}`,
  };
}
const fileOf = (workspaceId: string, n: number) => ({
  workspaceId,
  designId: "design",
  version: 1,
  requestId: `req-${run}`,
  fileId: `${run}-${workspaceId}-${n}`,
  fileName: `請求書-${n}`,
});
const pdfOf = (n: number) => Buffer.from(`%PDF-1.7 record ${n} ${run}`);

/** Keeps records 1..count in a workspace, `parallel` at a time. */
async function keepMany(workspaceId: string, count: number, parallel = 8): Promise<KeptRecord[]> {
  const kept: KeptRecord[] = [];
  for (let from = 1; from <= count; from += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - from + 1) }, (_, i) => from + i);
    kept.push(
      ...(await Promise.all(batch.map((n) => keepRecord(deps(), fileOf(workspaceId, n), fieldsOf(n), pdfOf(n))))),
    );
  }
  return kept;
}

/** Every item of an async iterable (Node 20 has no Array.fromAsync). */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const wsA = `recA-${run}`;
const wsB = `recB-${run}`;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  await keepMany(wsA, 120);
}, 120_000);

afterAll(async () => {
  await stack?.release();
});

describe("the records store", () => {
  it("appends concurrent records into one chain without a fork: places 1..n, each linked to the one before", async () => {
    const all = await collect(allRecords(store(), { workspaceId: wsA }));
    expect(all).toHaveLength(120);
    expect(all.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(await verifyRange(deps(), { workspaceId: wsA })).toEqual({ checked: 120, intact: 120, broken: [] });
  });

  it("keeps one record per file, whatever is retried or duplicated at once", async () => {
    const ws = `recDup-${run}`;
    const first = await Promise.all(
      Array.from({ length: 5 }, () => keepRecord(deps(), fileOf(ws, 1), fieldsOf(1), pdfOf(1))),
    );
    const again = await keepRecord(deps(), fileOf(ws, 1), { ...fieldsOf(1), amount: 9 }, pdfOf(1));
    expect(new Set([...first, again].map((r) => r.chainHash)).size).toBe(1);
    expect(await collect(allRecords(store(), { workspaceId: ws }))).toHaveLength(1);
  });

  it("searches by date range, sorted by date then number, 50 a page with a cursor", async () => {
    const query = { workspaceId: wsA };
    const first = await store().search(query, { limit: 50 });
    const second = await store().search(query, { limit: 50, cursor: first.next! });
    const third = await store().search(query, { limit: 50, cursor: second.next! });
    expect([first.records.length, second.records.length, third.records.length]).toEqual([50, 50, 20]);
    expect(third.next).toBeUndefined();
    const keys = [...first.records, ...second.records, ...third.records].map((r) => `${r.date}#${r.number}`);
    expect(keys).toEqual([...keys].sort());
    const march = await store().search(
      { workspaceId: wsA, dateFrom: "2026-03-01", dateTo: "2026-03-31" },
      { limit: 50 },
    );
    expect(march.records.length).toBe(10);
    expect(march.records.every((r) => r.date.startsWith("2026-03-"))).toBe(true);
    await expect(store().search(query, { limit: 50, cursor: "bm90IGEgY3Vyc29y" })).rejects.toBeInstanceOf(
      RecordCursorInvalid,
    );
  });

  it("narrows by amount range, counterparty (search form, partial), type, number, and combinations of them", async () => {
    const search = async (q: Record<string, unknown>) =>
      (await collect(allRecords(store(), { workspaceId: wsA, ...q })))
        .map((r) => r.amount / 1000)
        .sort((a, b) => a - b);
    expect(await search({ amountMin: 10_000, amountMax: 12_000 })).toEqual([10, 11, 12]);
    expect(await search({ counterparty: counterpartySearchForm("ABC") })).toHaveLength(30);
    expect(await search({ counterparty: "ｓａｍｐｌｅ".normalize("NFKC") })).toEqual([]);
    expect(await search({ number: "INV-0007" })).toEqual([7]);
    expect(await search({ type: "receipt", amountMax: 20_000 })).toEqual([5, 10, 15, 20]);
    // n % 12 = 0 → January; n % 4 = 1 → ＡＢＣ商事: 1 ≤ n ≤ 120 with both is n = 12k, 12k % 4 = 0: none; n % 4 = 0 → サンプル.
    expect(
      await search({ dateFrom: "2026-01-01", dateTo: "2026-01-31", counterparty: "サンプル", amountMin: 50_000 }),
    ).toEqual([60, 72, 84, 96, 108, 120]);
  });

  it("a one-month search with an amount range (the byMonthAmount index) pages 50 at a time in date order", async () => {
    const ws = `recMonth-${run}`;
    const deps = { store: store(), pdfs: pdfs(), clock: systemClock };
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        keepRecord(
          deps,
          fileOf(ws, i + 1),
          { ...fieldsOf(i + 1), date: `2026-05-${String((i % 28) + 1).padStart(2, "0")}` },
          pdfOf(i + 1),
        ),
      ),
    );
    const query = { workspaceId: ws, dateFrom: "2026-05-01", dateTo: "2026-05-31", amountMin: 5000, amountMax: 60_000 };
    const first = await store().search(query, { limit: 50 });
    const second = await store().search(query, { limit: 50, cursor: first.next! });
    expect([first.records.length, second.records.length, second.next]).toEqual([50, 6, undefined]);
    const all = [...first.records, ...second.records];
    expect(all.map((r) => r.amount / 1000).sort((x, y) => x - y)).toEqual(Array.from({ length: 56 }, (_, i) => i + 5));
    const keys = all.map((r) => `${r.date}#${r.number}`);
    expect(keys).toEqual([...keys].sort());
    const narrow = await store().search({ ...query, dateTo: "2026-05-02", amountMax: 30_000 }, { limit: 50 });
    expect(narrow.records.map((r) => r.amount / 1000).sort((x, y) => x - y)).toEqual([29, 30]);
  });

  it("takes over a claim left by a delivery that died: its record if it placed one, else a new place, never two", async () => {
    const ws = `recDead-${run}`;
    const deps = { store: store(), pdfs: pdfs(), clock: systemClock };
    const claim = (n: number) =>
      awsClients().ddb.send(
        new PutCommand({
          TableName: config().tables.records,
          Item: {
            pk: `WS#${ws}`,
            sk: `FILE#${fileOf(ws, n).fileId}`,
            claimedAt: new Date(Date.now() - 3_600_000).toISOString(),
          },
        }),
      );
    // Died before its place: the claim alone.
    await claim(1);
    const first = await keepRecord(deps, fileOf(ws, 1), fieldsOf(1), pdfOf(1));
    // Died after its place, before naming it on the claim.
    const placed = await keepRecord(deps, fileOf(ws, 2), fieldsOf(2), pdfOf(2));
    await claim(2);
    const again = await keepRecord(deps, fileOf(ws, 2), fieldsOf(2), pdfOf(2));
    expect(again.chainHash).toBe(placed.chainHash);
    const all = await collect(allRecords(store(), { workspaceId: ws }));
    expect(all.map((r) => r.seq).sort()).toEqual([1, 2]);
    expect(first.seq).toBe(1);
    expect((await store().find(ws, fileOf(ws, 2).fileId))?.seq).toBe(2);
  });

  it("shows nothing of another workspace", async () => {
    await keepMany(wsB, 2);
    const seen = await collect(allRecords(store(), { workspaceId: wsB }));
    expect(seen.map((r) => r.workspaceId)).toEqual([wsB, wsB]);
    expect(await store().find(wsB, fileOf(wsA, 1).fileId)).toBeUndefined();
    expect((await store().find(wsA, fileOf(wsA, 1).fileId))?.recordId).toBe(fileOf(wsA, 1).fileId);
  });

  it("keeps each PDF locked: an overwrite or a delete before its date is refused", async () => {
    const record = (await store().find(wsA, fileOf(wsA, 3).fileId))!;
    const Key = recordPdfKey(record);
    const Bucket = config().buckets.records;
    await expect(
      (await s3()).client.send(new PutObjectCommand({ Bucket, Key, Body: "changed" })),
    ).rejects.toMatchObject({
      name: "AccessDenied",
    });
    await expect((await s3()).client.send(new DeleteObjectCommand({ Bucket, Key }))).rejects.toMatchObject({
      name: "AccessDenied",
    });
    expect((await pdfs().read(Key))?.equals(pdfOf(3))).toBe(true);
    // An object whose date has passed may go, as in S3.
    const past = `records/${wsA}/expired.pdf`;
    await pdfs().keep(past, pdfOf(0), new Date(Date.now() - 1000));
    await (await s3()).client.send(new DeleteObjectCommand({ Bucket, Key: past }));
    expect(await pdfs().read(past)).toBeUndefined();
  });

  it("verify finds a PDF changed behind the service's back and a record edited in the table", async () => {
    const ws = `recTamper-${run}`;
    const kept = await keepMany(ws, 4, 1);
    // The local S3 store keeps an object as one file: a JSON head line, then the bytes.
    const file = join(
      stack.dataDir,
      "s3",
      localBucketName("records"),
      `${encodeURIComponent(recordPdfKey(kept[1]!))}@object`,
    );
    const stored = readFileSync(file);
    const bodyAt = stored.indexOf(0x0a) + 1;
    writeFileSync(file, Buffer.concat([stored.subarray(0, bodyAt), Buffer.from("%PDF-1.7 edited")]));
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.records,
        Key: { pk: `WS#${ws}`, sk: `SEQ#${String(kept[2]!.seq).padStart(12, "0")}` },
        UpdateExpression: "SET amount = :a",
        ExpressionAttributeValues: { ":a": 1 },
      }),
    );
    const report = await verifyRange(deps(), { workspaceId: ws });
    expect(report.checked).toBe(4);
    expect(report.intact).toBe(2);
    expect(report.broken).toEqual(
      expect.arrayContaining([
        { recordId: kept[1]!.recordId, reason: "pdf-changed" },
        { recordId: kept[2]!.recordId, reason: "record-changed" },
      ]),
    );
  });

  it("keeps the workspace's retention: 7 years by default, lengthened to 10, never shortened", async () => {
    const ws = `recYears-${run}`;
    expect(await store().retentionYears(ws)).toBe(7);
    expect(await store().lengthenRetention(ws, 10)).toBe(true);
    expect(await store().lengthenRetention(ws, 7)).toBe(false);
    expect(await store().retentionYears(ws)).toBe(10);
    expect(addYears(new Date("2024-02-29T00:00:00Z"), 7).toISOString()).toBe("2031-02-28T00:00:00.000Z");
  });
});
