import { type KeptRecord, chainHashOf, GENESIS_HASH } from "./record-chain.ts";

/** Why a record is not intact. */
export type BrokenReason = "pdf-missing" | "pdf-changed" | "record-changed" | "chain-broken";

export interface VerifyReport {
  checked: number;
  intact: number;
  broken: { recordId: string; reason: BrokenReason }[];
}

/** What verifying reads: the records of a range, the stored PDFs, and the chain around them. */
export interface VerifyPorts {
  /** The records to check (any order). */
  records: AsyncIterable<KeptRecord>;
  /** SHA-256 (hex) of the stored PDF's bytes as they are now; undefined when it is gone. */
  storedSha256(record: KeptRecord): Promise<string | undefined>;
  /** The chain hash stored on the workspace's record number `seq`; undefined when there is none. */
  chainHashAt(seq: number): Promise<string | undefined>;
}

/** PDFs read and hashed at once while verifying: a year's range is thousands of objects. */
const VERIFY_CONCURRENCY = 16;

/** What verifying keeps of a record while the rest of the range is read: its link and its own faults. */
interface Checked {
  recordId: string;
  seq: number;
  prevHash: string;
  /** Its fields no longer hash to its chain hash, or its PDF is gone or changed. */
  own: BrokenReason | undefined;
}

/**
 * Re-reads every record of a range (README.md#tamper-evidence): its PDF re-hashed against `sha256`, its
 * own chain hash recomputed from its fields (a changed field or hash shows), and its link to the previous
 * record (a record removed or replaced before it shows). A record is reported once, with its first fault in
 * that order. PDFs are read `concurrency` at a time, and only each record's link is held until the range ends.
 */
export async function verifyRecords(ports: VerifyPorts, concurrency = VERIFY_CONCURRENCY): Promise<VerifyReport> {
  const seen = new Map<number, string>();
  const checked: Checked[] = [];
  await eachAtOnce(ports.records, concurrency, async (record) => {
    seen.set(record.seq, record.chainHash);
    const entry: Checked = { recordId: record.recordId, seq: record.seq, prevHash: record.prevHash, own: undefined };
    checked.push(entry);
    entry.own = await ownFault(record, ports);
  });
  const faults = new Map<Checked, BrokenReason | undefined>();
  await eachAtOnce(checked, concurrency, async (entry) => {
    if (entry.own === "record-changed") return void faults.set(entry, entry.own);
    const previous =
      entry.seq === 1 ? GENESIS_HASH : (seen.get(entry.seq - 1) ?? (await ports.chainHashAt(entry.seq - 1)));
    faults.set(entry, previous === entry.prevHash ? entry.own : "chain-broken");
  });
  const report: VerifyReport = { checked: checked.length, intact: 0, broken: [] };
  for (const entry of checked) {
    const reason = faults.get(entry);
    if (reason) report.broken.push({ recordId: entry.recordId, reason });
    else report.intact++;
  }
  return report;
}

/** A record's own faults: its fields against its chain hash, then its PDF against `sha256`. */
async function ownFault(record: KeptRecord, ports: VerifyPorts): Promise<BrokenReason | undefined> {
  const { chainHash, ...fields } = record;
  if (chainHashOf(fields) !== chainHash) return "record-changed";
  const stored = await ports.storedSha256(record);
  if (stored === undefined) return "pdf-missing";
  return stored === record.sha256 ? undefined : "pdf-changed";
}

/** Runs `task` on every item, `limit` at a time, pulling items as tasks end (the items may be read lazily). */
async function eachAtOnce<T>(
  items: AsyncIterable<T> | Iterable<T>,
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  const worker = async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) await task(next.value);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}
