import { type DocumentInfo, keywordsText } from "./document-info.ts";
import type { PdfArchiveOptions } from "./pdf-a-options.ts";
import { appendUpdate, type PdfValue, plainString, textString } from "./pdf-increment.ts";

/**
 * Info dictionary key of the search metadata (see shared/render/README.md#pdf-post-processing-and-rfparams).
 */
export const SEARCH_METADATA_KEY = "rf:params";
const MAX_KEYS = 64;
const MAX_VALUE_CHARS = 256;

/**
 * search metadata (shared/render/README.md#pdf-post-processing-and-rfparams) from `passthrough`: top-level
 * strings (trimmed, empty ones skipped, cut to 256 characters) and finite numbers (plain decimal strings),
 * other types skipped, at most 64 keys in object order. Encoded as `key=value` pairs joined
 * by `&`, keys and values percent-encoded, so `new URLSearchParams(value)` reads it back.
 * @returns the encoded pairs, or "" when nothing is indexable.
 */
export function buildSearchMetadata(passthrough: Record<string, unknown> | undefined): string {
  const pairs: string[] = [];
  for (const [key, raw] of Object.entries(passthrough ?? {})) {
    if (pairs.length === MAX_KEYS) break;
    const value = indexableValue(raw);
    if (value !== undefined) pairs.push(`${percentEncode(key)}=${percentEncode(value)}`);
  }
  return pairs.join("&");
}

function indexableValue(raw: unknown): string | undefined {
  if (typeof raw === "number") return Number.isFinite(raw) ? toDecimalString(raw) : undefined;
  if (typeof raw !== "string") return undefined;
  const trimmed = raw.trim();
  if (trimmed === "") return undefined;
  // Count code points, not UTF-16 units, so a cut never splits a surrogate pair.
  const chars = Array.from(trimmed);
  return chars.length > MAX_VALUE_CHARS ? chars.slice(0, MAX_VALUE_CHARS).join("") : trimmed;
}

/** `1e21` → "1000000000000000000000", `1.5e-7` → "0.00000015", `-0` → "0". */
export function toDecimalString(n: number): string {
  if (Object.is(n, -0)) return "0";
  const text = String(n);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = "", lead = "", fraction = "", exponent = "0"] = match;
  const digits = lead + fraction;
  const point = 1 + Number(exponent);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** encodeURIComponent plus the characters it leaves alone that PDF literal strings dislike. */
function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export interface PostprocessOptions extends DocumentInfo, PdfArchiveOptions {
  passthrough?: Record<string, unknown>;
  /** The archival pass's dates (CreationDate = ModDate = xmp:CreateDate = xmp:ModifyDate); now by default. */
  now?: Date;
}

/**
 * Sets the Title, Author, Subject, Keywords and `rf:params`, repairs Japanese text extraction (see to-unicode-fix.ts)
 * and counts pages. Chromium's producer and dates are kept. With `standard`, `attachments` or `facturX` the same
 * update also makes the file PDF/A and embeds the files (pdf-a.ts, loaded only then;
 * shared/render/README.md#pdfa-and-embedded-files).
 * @throws PdfArchiveError for archival options that contradict each other, or a PDF that cannot be made PDF/A
 */
export async function postprocessPdf(
  pdf: Uint8Array,
  options: PostprocessOptions,
): Promise<{ pdf: Buffer; pageCount: number }> {
  const metadata = buildSearchMetadata(options.passthrough);
  if (options.standard !== undefined || options.attachments?.length || options.facturX !== undefined) {
    const { archivePdf } = await import("./pdf-a.ts");
    return archivePdf(pdf, options, infoEntries(options), metadata);
  }
  let updated: { pdf: Buffer; pageCount: number } | undefined;
  try {
    updated = appendUpdate(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength), {
      ...infoEntries(options),
      ...(metadata && { [SEARCH_METADATA_KEY]: plainString(metadata) }),
    });
  } catch {
    updated = undefined; // e.g. a stream that does not inflate: pdf-lib decides
  }
  if (updated) return updated;
  // pdf-lib is loaded only for such a PDF: evaluating it is no part of a cold start.
  const { rewriteWithPdfLib } = await import("./pdf-rewrite.ts");
  return rewriteWithPdfLib(pdf, infoEntries(options), metadata);
}

/** The document information entries, as text strings (any characters). */
export function infoEntries(info: DocumentInfo): Record<string, PdfValue> {
  return {
    Title: textString(info.title),
    ...(info.author !== undefined && { Author: textString(info.author) }),
    ...(info.subject !== undefined && { Subject: textString(info.subject) }),
    ...(info.keywords?.length && { Keywords: textString(keywordsText(info.keywords)) }),
  };
}

/** Reads `rf:params` back as a plain object (tests, tooling). */
export async function readSearchMetadata(pdf: Uint8Array): Promise<Record<string, string> | undefined> {
  return (await import("./pdf-rewrite.ts")).readSearchMetadata(pdf, SEARCH_METADATA_KEY);
}
