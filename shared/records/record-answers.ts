import * as z from "zod";
import { RECORD_TYPES } from "#shared/designs/bundle-schema.ts";
import { currencyMinorDigits } from "#shared/einvoice/currency.ts";
import type { KeptRecord } from "./record-chain.ts";

/** A record as the API answers it (the OpenAPI document's schema is this one). */
export const recordAnswerSchema = z.object({
  recordId: z.string(),
  type: z.enum(RECORD_TYPES),
  date: z.string().meta({ description: "取引年月日, YYYY-MM-DD" }),
  amount: z.int().meta({ description: "取引金額 in minor units of currency (yen for JPY)" }),
  currency: z.string(),
  counterparty: z.string(),
  number: z.string().optional(),
  registrationNumber: z.string().optional(),
  designId: z.string(),
  version: z.int(),
  requestId: z.string(),
  fileId: z.string(),
  fileName: z.string(),
  sha256: z.string().meta({ description: "SHA-256 (hex) of the kept PDF" }),
  createdAt: z.string(),
  seq: z.int().meta({ description: "the record's place in its workspace's chain" }),
  chainHash: z.string(),
  downloadPath: z.string().meta({ description: "the kept PDF, for the whole retention" }),
});

/** One page of `GET /v1/records`. */
export const recordPageSchema = z.object({
  records: z.array(recordAnswerSchema),
  next: z.string().optional().meta({ description: "the cursor of the next page" }),
});

/** `GET /v1/records/verify`. */
export const verifyReportSchema = z.object({
  checked: z.int(),
  intact: z.int(),
  broken: z.array(
    z.object({
      recordId: z.string(),
      reason: z.enum(["pdf-missing", "pdf-changed", "record-changed", "chain-broken"]),
    }),
  ),
});

/** Where a record's PDF is downloaded, below `{base_url}`'s host (as the status's `downloadPath`). */
export const recordDownloadPath = (recordId: string) => `/v1/records/${encodeURIComponent(recordId)}/pdf`;

/** A record as `GET /v1/records` answers it: its fields, `sha256`, `createdAt` and `downloadPath`. */
export function recordAnswer(r: KeptRecord): z.infer<typeof recordAnswerSchema> {
  return {
    recordId: r.recordId,
    type: r.type,
    date: r.date,
    amount: r.amount,
    currency: r.currency,
    counterparty: r.counterparty,
    ...(r.number !== undefined && { number: r.number }),
    ...(r.registrationNumber !== undefined && { registrationNumber: r.registrationNumber }),
    designId: r.designId,
    version: r.version,
    requestId: r.requestId,
    fileId: r.fileId,
    fileName: r.fileName,
    sha256: r.sha256,
    createdAt: r.createdAt,
    seq: r.seq,
    chainHash: r.chainHash,
    downloadPath: recordDownloadPath(r.recordId),
  };
}

/** The export's columns, in the order a tax officer's request lists them. */
const COLUMNS: { ja: string; en: string; value: (r: KeptRecord) => string }[] = [
  { ja: "取引年月日", en: "Transaction date", value: (r) => r.date },
  { ja: "取引金額", en: "Amount", value: (r) => recordAmountText(r.amount, r.currency) },
  { ja: "通貨", en: "Currency", value: (r) => r.currency },
  { ja: "取引先", en: "Counterparty", value: (r) => r.counterparty },
  { ja: "書類の種類", en: "Document type", value: (r) => r.type },
  { ja: "書類番号", en: "Document number", value: (r) => r.number ?? "" },
  { ja: "登録番号", en: "Registration number", value: (r) => r.registrationNumber ?? "" },
  { ja: "ファイル名", en: "File name", value: (r) => r.fileName },
  { ja: "SHA-256", en: "SHA-256", value: (r) => r.sha256 },
  { ja: "記録ID", en: "Record ID", value: (r) => r.recordId },
  { ja: "作成日時", en: "Created at", value: (r) => r.createdAt },
];

/** Minor units as the currency writes them: 55000 JPY → "55000", 123450 USD → "1234.50". */
export function recordAmountText(units: number, currency: string): string {
  const digits = currencyMinorDigits(currency);
  if (digits === 0) return String(units);
  const sign = units < 0 ? "-" : "";
  const text = String(Math.abs(units)).padStart(digits + 1, "0");
  return `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; a leading =+-@ defused. */
function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const csvLine = (fields: string[]) => `${fields.map(csvField).join(",")}\r\n`;

/**
 * The export as CSV chunks (`GET /v1/records/export`): UTF-8 with a BOM so Excel reads the Japanese, the
 * header row in Japanese (English with `lang=en`), then one row per record, produced as they are read.
 */
export async function* recordsCsv(records: AsyncIterable<KeptRecord>, lang: "ja" | "en"): AsyncGenerator<Buffer> {
  yield Buffer.from(`\uFEFF${csvLine(COLUMNS.map((c) => c[lang]))}`, "utf8");
  let chunk = "";
  for await (const record of records) {
    chunk += csvLine(COLUMNS.map((c) => c.value(record)));
    if (chunk.length > 64 * 1024) {
      yield Buffer.from(chunk, "utf8");
      chunk = "";
    }
  }
  if (chunk) yield Buffer.from(chunk, "utf8");
}
