import { createHash } from "node:crypto";
import type { RecordFields } from "./record-fields.ts";

/** The previous hash of a workspace's first record: 64 zeros. */
export const GENESIS_HASH = "0".repeat(64);

/** The generated file a record is made for. */
export interface RecordedFile {
  workspaceId: string;
  designId: string;
  version: number;
  requestId: string;
  fileId: string;
  fileName: string;
}

/** One kept record: its evaluated fields and what ties it to its file, its PDF and the chain. */
export interface KeptRecord extends RecordFields, RecordedFile {
  /** The file's id: one record per file, whatever is retried. */
  recordId: string;
  /** SHA-256 (hex) of exactly the stored PDF's bytes. */
  sha256: string;
  createdAt: string;
  /** The record's place in its workspace's chain, 1 for the first. */
  seq: number;
  /** The chain hash of record `seq − 1` (GENESIS_HASH for the first). */
  prevHash: string;
  /** SHA-256(prevHash + canonical JSON of the record's fields). */
  chainHash: string;
}

/** Everything a chain hash covers: the record without its own hash. */
export type ChainedFields = Omit<KeptRecord, "chainHash">;

/**
 * JSON with keys sorted at every level and no whitespace: the same record always hashes the same,
 * whatever order its attributes were read back in (for strings and safe integers this is RFC 8785).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** `chainHash` of a record: SHA-256 of the previous hash followed by the canonical JSON of its fields. */
export function chainHashOf(fields: ChainedFields): string {
  return createHash("sha256").update(fields.prevHash).update(canonicalJson(fields)).digest("hex");
}

/** The chain fields of a workspace's next record, given its head (undefined: no record yet). */
export function chainNext(head: { seq: number; chainHash: string } | undefined): { seq: number; prevHash: string } {
  return head ? { seq: head.seq + 1, prevHash: head.chainHash } : { seq: 1, prevHash: GENESIS_HASH };
}

/** A record sealed into its chain: its fields, its place, its hash. */
export function sealRecord(
  fields: Omit<ChainedFields, "seq" | "prevHash">,
  head: Parameters<typeof chainNext>[0],
): KeptRecord {
  const chained: ChainedFields = { ...fields, ...chainNext(head) };
  return { ...chained, chainHash: chainHashOf(chained) };
}

export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");
