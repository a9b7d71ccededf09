import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  chainHashOf,
  GENESIS_HASH,
  type KeptRecord,
  sealRecord,
  sha256Hex,
  verifyRecords,
  type VerifyPorts,
} from "#shared/records/index.ts";

const fieldsOf = (n: number) => ({
  recordId: `file-${n}`,
  workspaceId: "ws",
  type: "invoice" as const,
  date: `2026-11-${String(n).padStart(2, "0")}`,
  amount: 1000 * n,
  currency: "JPY",
  counterparty: "株式会社サンプル",
  counterpartySearch: "株式会社サンプル",
  designId: "d",
  version: 1,
  requestId: "r",
  fileId: `file-${n}`,
  fileName: `請求書-${n}`,
  sha256: sha256Hex(Buffer.from(`pdf ${n}`)),
  createdAt: `2026-11-${String(n).padStart(2, "0")}T00:00:00.000Z`,
});

/** A chain of `count` records, each sealed on the one before. */
function chain(count: number): KeptRecord[] {
  const records: KeptRecord[] = [];
  for (let n = 1; n <= count; n++) records.push(sealRecord(fieldsOf(n), records.at(-1)));
  return records;
}

/** Ports over records and PDFs held in memory, as the DynamoDB and S3 adapters answer them. */
function ports(records: KeptRecord[], pdfs: Map<string, Buffer>, range = records): VerifyPorts {
  return {
    records: (async function* () {
      yield* range;
    })(),
    storedSha256: async (r) => {
      const pdf = pdfs.get(r.recordId);
      return pdf && sha256Hex(pdf);
    },
    chainHashAt: async (seq) => records.find((r) => r.seq === seq)?.chainHash,
  };
}

const pdfsOf = (count: number) =>
  new Map(Array.from({ length: count }, (_, i) => [`file-${i + 1}`, Buffer.from(`pdf ${i + 1}`)]));

describe("the records' chain", () => {
  it("canonical JSON sorts keys at every level and leaves undefined out", () => {
    expect(canonicalJson({ b: 1, a: { d: "x", c: [2, { f: 1, e: 0 }] }, u: undefined })).toBe(
      '{"a":{"c":[2,{"e":0,"f":1}],"d":"x"},"b":1}',
    );
  });

  it("links each record to the one before: seq, prevHash, SHA-256(prevHash + canonical fields)", () => {
    const [first, second] = chain(2);
    expect(first).toMatchObject({ seq: 1, prevHash: GENESIS_HASH });
    expect(second).toMatchObject({ seq: 2, prevHash: first!.chainHash });
    const { chainHash, ...rest } = second!;
    expect(chainHash).toBe(sha256Hex(Buffer.from(second!.prevHash + canonicalJson(rest))));
    expect(chainHashOf(rest)).toBe(chainHash);
  });

  it("verifies an intact range, reading links before it from the store", async () => {
    const records = chain(5);
    const report = await verifyRecords(ports(records, pdfsOf(5), records.slice(2)));
    expect(report).toEqual({ checked: 3, intact: 3, broken: [] });
  });

  it("reports a changed PDF and a missing one", async () => {
    const pdfs = pdfsOf(3);
    pdfs.set("file-2", Buffer.from("pdf 2, edited"));
    pdfs.delete("file-3");
    const report = await verifyRecords(ports(chain(3), pdfs));
    expect(report).toEqual({
      checked: 3,
      intact: 1,
      broken: [
        { recordId: "file-2", reason: "pdf-changed" },
        { recordId: "file-3", reason: "pdf-missing" },
      ],
    });
  });

  it("reports a changed field as the record changed, and a removed record as the chain broken after it", async () => {
    const records = chain(4);
    records[1] = { ...records[1]!, amount: 1 };
    const withoutThird = records.filter((r) => r.seq !== 3);
    const report = await verifyRecords(ports(withoutThird, pdfsOf(4)));
    expect(report.broken).toEqual([
      { recordId: "file-2", reason: "record-changed" },
      { recordId: "file-4", reason: "chain-broken" },
    ]);
  });

  it("reports a record re-sealed after an edit: its successor's link no longer matches", async () => {
    const records = chain(3);
    const { chainHash: _, seq, prevHash, ...fields } = records[1]!;
    const forged = { ...sealRecord({ ...fields, amount: 1 }, records[0]), seq, prevHash };
    records[1] = forged;
    const report = await verifyRecords(ports(records, pdfsOf(3)));
    expect(report.broken).toEqual([{ recordId: "file-3", reason: "chain-broken" }]);
  });

  it("reads PDFs several at a time, never more than its limit, and reports faults in the order records came", async () => {
    const records = chain(40);
    const pdfs = pdfsOf(40);
    pdfs.set("file-7", Buffer.from("changed"));
    pdfs.delete("file-31");
    const base = ports(records, pdfs);
    let inFlight = 0;
    let most = 0;
    const report = await verifyRecords(
      {
        ...base,
        storedSha256: async (r) => {
          most = Math.max(most, ++inFlight);
          // Later records answer sooner: the report must still follow the order records were read in.
          await new Promise((done) => setTimeout(done, 40 - r.seq));
          inFlight--;
          return base.storedSha256(r);
        },
      },
      8,
    );
    expect(most).toBe(8);
    expect(report).toEqual({
      checked: 40,
      intact: 38,
      broken: [
        { recordId: "file-7", reason: "pdf-changed" },
        { recordId: "file-31", reason: "pdf-missing" },
      ],
    });
  });
});
