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

/**
 * Re-reads every record of a range (README.md#tamper-evidence): its PDF re-hashed against `sha256`, its
 * own chain hash recomputed from its fields (a changed field or hash shows), and its link to the previous
 * record (a record removed or replaced before it shows). A record is reported once, with its first fault.
 */
export async function verifyRecords(ports: VerifyPorts): Promise<VerifyReport> {
  const seen = new Map<number, string>();
  const records: KeptRecord[] = [];
  for await (const record of ports.records) {
    records.push(record);
    seen.set(record.seq, record.chainHash);
  }
  const report: VerifyReport = { checked: records.length, intact: 0, broken: [] };
  for (const record of records) {
    const reason = await faultOf(record, ports, seen);
    if (reason) report.broken.push({ recordId: record.recordId, reason });
    else report.intact++;
  }
  return report;
}

async function faultOf(
  record: KeptRecord,
  ports: VerifyPorts,
  seen: Map<number, string>,
): Promise<BrokenReason | undefined> {
  const { chainHash, ...fields } = record;
  if (chainHashOf(fields) !== chainHash) return "record-changed";
  const previous =
    record.seq === 1 ? GENESIS_HASH : (seen.get(record.seq - 1) ?? (await ports.chainHashAt(record.seq - 1)));
  if (previous !== record.prevHash) return "chain-broken";
  const stored = await ports.storedSha256(record);
  if (stored === undefined) return "pdf-missing";
  return stored === record.sha256 ? undefined : "pdf-changed";
}
