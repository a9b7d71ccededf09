import { deflateSync, inflateSync } from "node:zlib";
import { fixRadicalsInToUnicode } from "./to-unicode-fix.ts";

/**
 * Post-processing as a PDF incremental update (ISO 32000-1 §7.5.6): the bytes Chromium
 * wrote stay as they are, and the changed objects — the Info dictionary, repaired
 * ToUnicode maps — are appended with a cross-reference section and a trailer pointing
 * back at the original one. Parsing and re-serialising the whole file with pdf-lib took
 * ~2 ms per invoice; this reads the trailer, the page tree root and the ToUnicode streams.
 *
 * It understands what Skia writes (classic `xref` table, uncompressed object headers) and
 * returns undefined for anything else, so the caller can fall back to pdf-lib.
 */
export function appendUpdate(
  pdf: Buffer,
  info: Record<string, PdfValue>,
  extend?: (context: UpdateContext) => UpdateExtension | undefined,
): { pdf: Buffer; pageCount: number } | undefined {
  const text = pdf.toString("latin1");
  const xref = readXref(text);
  if (!xref) return undefined;
  const object = (num: number) => readObject(text, xref.offsets.get(num), num);
  const infoNum = xref.info ?? xref.size;
  let next = Math.max(xref.size, infoNum + 1);
  const extension = extend?.({
    text,
    root: xref.root,
    object,
    objectNumbers: () => xref.offsets.keys(),
    ...(xref.id !== undefined && { id: xref.id }),
    ...(xref.info !== undefined && { info: object(xref.info) }),
    newObject: () => next++,
  });
  if (extend && !extension) return undefined;
  if (extension?.info) info = { ...info, ...extension.info };

  const root = object(xref.root);
  const pagesRef = root && /\/Pages\s+(\d+)\s+0\s+R/.exec(root)?.[1];
  const count = pagesRef && /\/Count\s+(\d+)/.exec(object(Number(pagesRef)) ?? "")?.[1];
  if (!count) return undefined;

  const updates: { num: number; body: string | Buffer }[] = [];
  const oldInfo = xref.info !== undefined ? object(xref.info) : undefined;
  const kept = oldInfo ? keptInfoEntries(oldInfo, Object.keys(info)) : "";
  if (kept === undefined) return undefined;
  const infoBody = `<<${kept}${Object.entries(info)
    .map(([key, value]) => `/${key} ${value.text}`)
    .join("\n")}>>`;
  updates.push({ num: infoNum, body: infoBody }, ...(extension?.objects ?? []));

  for (const num of new Set([...text.matchAll(/\/ToUnicode\s+(\d+)\s+0\s+R/g)].map((m) => Number(m[1])))) {
    const fixed = fixedToUnicode(pdf, text, xref.offsets.get(num), num);
    if (fixed === null) return undefined;
    if (fixed) updates.push({ num, body: fixed });
  }

  const chunks: Buffer[] = [pdf, Buffer.from(pdf[pdf.length - 1] === 0x0a ? "" : "\n", "latin1")];
  let offset = chunks.reduce((n, c) => n + c.length, 0);
  const entries: string[] = [];
  for (const u of updates.sort((a, b) => a.num - b.num)) {
    entries.push(`${u.num} 1\n${String(offset).padStart(10, "0")} 00000 n \n`);
    const head = Buffer.from(`${u.num} 0 obj\n`, "latin1");
    const body = typeof u.body === "string" ? Buffer.from(u.body, "latin1") : u.body;
    const tail = Buffer.from("\nendobj\n", "latin1");
    chunks.push(head, body, tail);
    offset += head.length + body.length + tail.length;
  }
  const extra = extension?.trailer ? `\n${extension.trailer}` : "";
  const trailer = `xref\n${entries.join("")}trailer\n<</Size ${next}\n/Root ${xref.root} 0 R\n/Info ${infoNum} 0 R\n/Prev ${xref.start}${extra}>>\nstartxref\n${offset}\n%%EOF\n`;
  chunks.push(Buffer.from(trailer, "latin1"));
  return { pdf: Buffer.concat(chunks), pageCount: Number(count) };
}

/** What an extension of the update (the PDF/A pass, pdf-a.ts) reads of the file. */
export interface UpdateContext {
  /** The whole file as latin1 text (byte offsets are string offsets). */
  text: string;
  root: number;
  /** Object `num`'s text from its header to `endobj` (for a stream: its dictionary and data). */
  object(num: number): string | undefined;
  objectNumbers(): Iterable<number>;
  /** The first string of the trailer's `/ID`, as hex, when the file has one. */
  id?: string;
  /** The Info dictionary's object text, when the file has one. */
  info?: string | undefined;
  /** A free object number for a new object. */
  newObject(): number;
}

/** What an extension adds: Info entries (over the caller's), objects (new or replacing), trailer entries. */
export interface UpdateExtension {
  info?: Record<string, PdfValue>;
  objects: { num: number; body: string | Buffer }[];
  trailer?: string;
}

interface Xref {
  start: number;
  size: number;
  root: number;
  info?: number;
  id?: string;
  offsets: Map<number, number>;
}

/** The last cross-reference table and its trailer, when it is a classic single table. */
function readXref(text: string): Xref | undefined {
  const start = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  if (!Number.isInteger(start) || !text.startsWith("xref", start)) return undefined;
  const trailerAt = text.indexOf("trailer", start);
  if (trailerAt < 0) return undefined;
  const offsets = new Map<number, number>();
  const table = text.slice(start + 4, trailerAt);
  const sections = table.matchAll(/(\d+)\s+(\d+)\s*\n((?:\d{10} \d{5} [nf]\s*\n?)*)/g);
  for (const [, first, , rows] of sections) {
    let num = Number(first);
    for (const row of (rows ?? "").matchAll(/(\d{10}) \d{5} ([nf])/g)) {
      if (row[2] === "n") offsets.set(num, Number(row[1]));
      num += 1;
    }
  }
  const trailer = text.slice(trailerAt, text.indexOf(">>", trailerAt) + 2);
  if (/\/(Prev|Encrypt|XRefStm)\b/.test(trailer)) return undefined; // not Skia's one-section file
  const size = Number(/\/Size\s+(\d+)/.exec(trailer)?.[1]);
  const root = Number(/\/Root\s+(\d+)\s+0\s+R/.exec(trailer)?.[1]);
  const info = /\/Info\s+(\d+)\s+0\s+R/.exec(trailer)?.[1];
  const id = /\/ID\s*\[\s*<([0-9A-Fa-f]+)>/.exec(trailer)?.[1];
  if (!Number.isInteger(size) || !Number.isInteger(root) || offsets.size === 0) return undefined;
  return {
    start,
    size,
    root,
    offsets,
    ...(info !== undefined && { info: Number(info) }),
    ...(id !== undefined && { id }),
  };
}

/** The text of object `num` from its header to `endobj` (dictionaries only; streams are read apart). */
function readObject(text: string, at: number | undefined, num: number): string | undefined {
  if (at === undefined || !text.startsWith(`${num} 0 obj`, at)) return undefined;
  const end = text.indexOf("endobj", at);
  return end < 0 ? undefined : text.slice(at, end);
}

/**
 * The Info entries to keep (Skia's Creator, Producer and dates), as written, minus the
 * keys being replaced; undefined when a value is not a plain literal string.
 */
function keptInfoEntries(obj: string, replaced: string[]): string | undefined {
  const dict = /<<([\s\S]*)>>/.exec(obj)?.[1];
  if (dict === undefined) return undefined;
  let kept = "";
  const entry = /\/([A-Za-z0-9:._-]+)\s*(\((?:[^()\\]|\\[\s\S])*\)|<[0-9A-Fa-f\s]*>)\s*/gy;
  let consumed = 0;
  const body = dict.trim();
  for (let m = entry.exec(body); m; m = entry.exec(body)) {
    consumed = entry.lastIndex;
    if (!replaced.includes(m[1]!)) kept += `/${m[1]} ${m[2]}\n`;
  }
  return consumed === body.length ? kept : undefined;
}

/**
 * The repaired stream object of a ToUnicode map, "" when it needs no repair, null when
 * it is not a Flate stream with a direct length (then pdf-lib does the job).
 */
function fixedToUnicode(pdf: Buffer, text: string, at: number | undefined, num: number): Buffer | "" | null {
  const obj = at === undefined ? undefined : text.slice(at, text.indexOf("stream", at) + 6);
  if (!obj?.startsWith(`${num} 0 obj`)) return null;
  const length = Number(/\/Length\s+(\d+)\s*[/>]/.exec(obj)?.[1]);
  if (!/\/Filter\s*\/FlateDecode\s*[/>]/.test(obj) || /\/DecodeParms/.test(obj) || !Number.isInteger(length))
    return null;
  let dataAt = at! + obj.length;
  if (text[dataAt] === "\r") dataAt += 1;
  if (text[dataAt] === "\n") dataAt += 1;
  const cmap = inflateSync(pdf.subarray(dataAt, dataAt + length)).toString("latin1");
  const fixed = fixRadicalsInToUnicode(cmap);
  if (fixed === undefined) return "";
  // Level 1: a CMap of a few KB deflates in ~35 µs instead of ~175 µs at the default level,
  // ~10 % larger; a Japanese invoice repairs several (one per font subset) on every render.
  const deflated = deflateSync(Buffer.from(fixed, "latin1"), { level: 1 });
  return Buffer.concat([
    Buffer.from(`<</Filter /FlateDecode\n/Length ${deflated.length}>> stream\n`, "latin1"),
    deflated,
    Buffer.from("\nendstream", "latin1"),
  ]);
}

/** A value as written into the file. */
export interface PdfValue {
  text: string;
}

/** A PDF text string: UTF-16BE with a byte-order mark, as a hex string (any characters, no escaping). */
export function textString(value: string): PdfValue {
  const utf16 = Buffer.from(`\ufeff${value}`, "utf16le").swap16();
  return { text: `<${utf16.toString("hex").toUpperCase()}>` };
}

/** A literal string of printable ASCII without parentheses or backslashes (e.g. percent-encoded pairs). */
export function plainString(value: string): PdfValue {
  if (!/^[\x20-\x7e]*$/.test(value) || /[()\\]/.test(value)) throw new Error("not a plain PDF string");
  return { text: `(${value})` };
}
