import { SignPdfError } from "./signing-errors.ts";

/**
 * The PDF side of a signature (ISO 32000-1 §12.8): an incremental update appended after the file's
 * last byte, holding a signature dictionary with a `/Contents` placeholder, a signature field that is
 * also its widget annotation, a new version of the page that carries the widget and a new version of
 * the catalog with an `/AcroForm` naming the field. The bytes before the update are never changed, so
 * everything earlier steps wrote (PDF/A, the embedded XML, tags) stays as it was, trailer `/ID` included.
 *
 * It reads what our pipeline writes: classic cross-reference tables, the first from Skia and each later
 * one (post-processing, the PDF/A pass) an update pointing back with `/Prev`; objects of generation 0.
 * A cross-reference stream or an encrypted file is refused (SignPdfError), never half-signed.
 */

/** A box in PDF points from the page's top-left corner, on 1-based `page`. */
export interface SignatureBox {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the update writes besides the placeholder. */
export interface SignatureFields {
  /** The signature dictionary's /M. */
  signingTime: Date;
  reason?: string;
  location?: string;
  contactInfo?: string;
  /** Absent: an invisible signature (Rect [0 0 0 0]). */
  visible?: SignatureBox & { lines: string[] };
}

/** A file with its update appended and the placeholder still to fill. */
export interface PreparedSignature {
  /** The whole file, the placeholder's bytes zero. */
  pdf: Buffer;
  /** [0, a, b, c]: what the signature covers, everything but the `/Contents` hex string. */
  byteRange: [number, number, number, number];
  /** Bytes of DER the placeholder holds. */
  capacity: number;
}

interface XrefChain {
  /** The newest offset of each object in use. */
  offsets: Map<number, number>;
  /** The newest trailer's text. */
  trailer: string;
  start: number;
  size: number;
  root: number;
}

/**
 * Appends the signature's update with a `/Contents` placeholder of `capacity` bytes.
 * @throws SignPdfError for a file this appender cannot extend, or a page that does not exist
 */
export function prepareSignature(pdf: Buffer, fields: SignatureFields, capacity: number): PreparedSignature {
  const text = pdf.toString("latin1");
  const xref = readXrefChain(text);
  const object = (num: number): string => {
    const at = xref.offsets.get(num);
    const body = at === undefined ? undefined : objectBody(text, at, num);
    if (body === undefined) throw new SignPdfError(`object ${num} could not be read`);
    return body;
  };
  const catalog = object(xref.root);
  const pageNumber = fields.visible?.page ?? 1;
  const page = findPage(object, refOf(catalog, "Pages"), pageNumber);
  if (page === undefined) throw new SignPdfError(`the document has no page ${pageNumber}`);

  let next = xref.size;
  const sigNum = next++;
  const widgetNum = next++;
  const appearanceNum = next++;
  const fontNum = fields.visible ? next++ : undefined;
  const updates: { num: number; body: string }[] = [];

  const rect = fields.visible ? widgetRect(object, page, fields.visible) : [0, 0, 0, 0];
  const width = rect[2]! - rect[0]!;
  const height = rect[3]! - rect[1]!;
  updates.push({ num: sigNum, body: signatureDictionary(fields, capacity) });
  updates.push({
    num: widgetNum,
    // One dictionary is both the field and its widget; /F 132 = Print + Locked, as PDF/A wants Print set.
    body: `<</Type /Annot /Subtype /Widget /FT /Sig /T (Signature${sigNum}) /V ${sigNum} 0 R /F 132 /P ${page.num} 0 R /Rect [${rect.map(num).join(" ")}] /AP <</N ${appearanceNum} 0 R>>>>`,
  });
  updates.push({ num: appearanceNum, body: appearanceStream(width, height, fields.visible?.lines, fontNum) });
  if (fontNum !== undefined)
    updates.push({
      num: fontNum,
      body: "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>",
    });

  // The page gets the widget in its /Annots: inline, or as a new version of the array object it names.
  const annots = topLevelEntries(page.body).get("Annots");
  if (!annots) updates.push({ num: page.num, body: withEntry(page.body, "Annots", `[${widgetNum} 0 R]`) });
  else if (annots.value.startsWith("[")) {
    updates.push({ num: page.num, body: replaceValue(page.body, annots, appendToArray(annots.value, widgetNum)) });
  } else {
    const arrayNum = refNumber(annots.value);
    const array = arrayNum === undefined ? undefined : object(arrayNum).trim();
    if (arrayNum === undefined || !array?.startsWith("[")) throw new SignPdfError("the page's /Annots is not an array");
    updates.push({ num: arrayNum, body: appendToArray(array, widgetNum) });
  }
  updates.push({ num: xref.root, body: catalogWithField(catalog, object, widgetNum, updates) });

  const head = pdf[pdf.length - 1] === 0x0a ? "" : "\n";
  let offset = pdf.length + head.length;
  const parts: string[] = [head];
  const entries: string[] = [];
  for (const u of updates.sort((a, b) => a.num - b.num)) {
    entries.push(`${u.num} 1\n${String(offset).padStart(10, "0")} 00000 n \n`);
    const written = `${u.num} 0 obj\n${u.body}\nendobj\n`;
    parts.push(written);
    offset += Buffer.byteLength(written, "latin1");
  }
  const kept = ["Info", "ID"].map((key) => keptTrailerEntry(xref.trailer, key)).join("");
  parts.push(
    `xref\n${entries.join("")}trailer\n<</Size ${next} /Root ${xref.root} 0 R${kept} /Prev ${xref.start}>>\nstartxref\n${offset}\n%%EOF\n`,
  );
  const signed = Buffer.concat([pdf, Buffer.from(parts.join(""), "latin1")]);
  return { pdf: signed, ...fillByteRange(signed, pdf.length), capacity };
}

/**
 * Writes the DER into the placeholder (hex, zero-padded).
 * @throws SignPdfError when it does not fit (the caller signs again with more room)
 */
export function embedSignature(prepared: PreparedSignature, der: Buffer): Buffer {
  if (der.length > prepared.capacity)
    throw new SignPdfError(
      `the signature (${der.length} bytes) does not fit its ${prepared.capacity}-byte placeholder`,
    );
  const at = prepared.byteRange[1] + 1; // after "<"
  prepared.pdf.write(der.toString("hex").toUpperCase(), at, "latin1");
  return prepared.pdf;
}

/** The two parts of the file a signature covers. */
export const signedParts = (prepared: PreparedSignature): Buffer[] => {
  const [a, b, c, d] = prepared.byteRange;
  return [prepared.pdf.subarray(a, a + b), prepared.pdf.subarray(c, c + d)];
};

const BYTE_RANGE_PLACEHOLDER = "/ByteRange [0 0000000000 0000000000 0000000000]";

function signatureDictionary(fields: SignatureFields, capacity: number): string {
  const entries: [string, string | undefined][] = [
    ["Reason", fields.reason],
    ["Location", fields.location],
    ["ContactInfo", fields.contactInfo],
  ];
  const texts = entries
    .flatMap(([key, value]) => (value === undefined ? [] : [` /${key} ${textString(value)}`]))
    .join("");
  return `<</Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached ${BYTE_RANGE_PLACEHOLDER} /Contents <${"0".repeat(capacity * 2)}> /M (${pdfDate(fields.signingTime)})${texts}>>`;
}

/** Patches the ByteRange in place (fixed width, space-padded) once the update's layout is known. */
function fillByteRange(pdf: Buffer, updateAt: number): { byteRange: [number, number, number, number] } {
  const text = pdf.toString("latin1", updateAt);
  const rangeAt = updateAt + text.indexOf(BYTE_RANGE_PLACEHOLDER);
  const contentsAt = updateAt + text.indexOf("/Contents <", rangeAt - updateAt) + "/Contents ".length;
  const contentsEnd = pdf.indexOf(">", contentsAt) + 1;
  const byteRange: [number, number, number, number] = [0, contentsAt, contentsEnd, pdf.length - contentsEnd];
  const numbers = byteRange.slice(1).map((n) => String(n).padEnd(10, " "));
  const written = `/ByteRange [0 ${numbers.join(" ")}]`;
  if (written.length !== BYTE_RANGE_PLACEHOLDER.length) throw new SignPdfError("the file is too large to sign");
  pdf.write(written, rangeAt, "latin1");
  return { byteRange };
}

/** The catalog with its /AcroForm naming the new field (an existing form keeps its fields). */
function catalogWithField(
  catalog: string,
  object: (num: number) => string,
  widgetNum: number,
  updates: { num: number; body: string }[],
): string {
  const form = topLevelEntries(catalog).get("AcroForm");
  if (!form) return withEntry(catalog, "AcroForm", `<</Fields [${widgetNum} 0 R] /SigFlags 3>>`);
  const formNum = form.value.startsWith("<<") ? undefined : refNumber(form.value);
  const formBody = formNum === undefined ? form.value : object(formNum).trim();
  const fields = topLevelEntries(formBody).get("Fields");
  let updated: string;
  if (!fields) updated = withEntry(formBody, "Fields", `[${widgetNum} 0 R]`);
  else if (fields.value.startsWith("["))
    updated = replaceValue(formBody, fields, appendToArray(fields.value, widgetNum));
  else {
    // /Fields by reference: a new version of the array object, the form itself unchanged there.
    const arrayNum = refNumber(fields.value);
    const array = arrayNum === undefined ? undefined : object(arrayNum).trim();
    if (arrayNum === undefined || !array?.startsWith("[")) throw new SignPdfError("the form's /Fields is not an array");
    updates.push({ num: arrayNum, body: appendToArray(array, widgetNum) });
    updated = formBody;
  }
  const flags = topLevelEntries(updated).get("SigFlags");
  updated = flags ? replaceValue(updated, flags, "3") : withEntry(updated, "SigFlags", "3");
  if (formNum === undefined) return replaceValue(catalog, form, updated);
  updates.push({ num: formNum, body: updated });
  return catalog;
}

/** The widget's Rect in default user space: the box is measured from the visible page's top-left. */
function widgetRect(object: (num: number) => string, page: PageRef, box: SignatureBox): number[] {
  const { x: boxX, y: boxY, width, height } = box;
  if (![boxX, boxY, width, height].every(Number.isFinite) || boxX < 0 || boxY < 0 || width <= 0 || height <= 0)
    throw new SignPdfError("the signature's box needs a position of at least 0 and a positive size");
  const [left, bottom, right, top] =
    inheritedBox(object, page, "CropBox") ?? inheritedBox(object, page, "MediaBox") ?? [];
  if (top === undefined || left === undefined || right === undefined || bottom === undefined)
    throw new SignPdfError(`page ${box.page} has no MediaBox`);
  const x = left + box.x;
  const y = top - box.y - box.height;
  if (x + box.width > right + 0.01 || y < bottom - 0.01)
    throw new SignPdfError(`the signature's box does not lie on page ${box.page}`);
  return [x, y, x + box.width, y + box.height];
}

function inheritedBox(object: (num: number) => string, page: PageRef, key: string): number[] | undefined {
  let body: string | undefined = page.body;
  for (let depth = 0; body !== undefined && depth < 32; depth++) {
    const entry = topLevelEntries(body).get(key);
    if (entry) {
      const value = entry.value.startsWith("[") ? entry.value : object(refNumber(entry.value) ?? -1);
      const numbers = [...value.matchAll(/-?\d*\.?\d+/g)].map((m) => Number(m[0]));
      return numbers.length === 4 ? numbers : undefined;
    }
    const parent = refOf(body, "Parent");
    body = parent === undefined ? undefined : object(parent);
  }
  return undefined;
}

/** A form XObject: empty (an invisible signature still has an appearance, as PDF/A asks), or the box's text. */
function appearanceStream(width: number, height: number, lines: string[] | undefined, fontNum?: number): string {
  let content = "";
  if (lines && fontNum !== undefined) {
    const size = Math.max(4, Math.min(10, (height - 6) / Math.max(lines.length, 1) / 1.25));
    const frame = `q 0.5 w 0 0 0 RG 0.25 0.25 ${num(width - 0.5)} ${num(height - 0.5)} re S Q`;
    const text = lines
      .map((line, i) => `1 0 0 1 4 ${num(height - 3 - size * 1.25 * (i + 1) + size * 0.25)} Tm (${literal(line)}) Tj`)
      .join(" ");
    content = `${frame}\nq 0 0 0 rg BT /F1 ${num(size)} Tf ${text} ET Q`;
  }
  const resources = fontNum === undefined ? "" : ` /Resources <</Font <</F1 ${fontNum} 0 R>>>>`;
  return `<</Type /XObject /Subtype /Form /BBox [0 0 ${num(width)} ${num(height)}]${resources} /Length ${Buffer.byteLength(content, "latin1")}>>\nstream\n${content}\nendstream`;
}

interface PageRef {
  num: number;
  body: string;
}

/** Page `n` (1-based) of the page tree under `pagesNum`, walking /Kids and counting /Count. */
function findPage(object: (num: number) => string, pagesNum: number | undefined, n: number): PageRef | undefined {
  let node = pagesNum;
  let remaining = n;
  for (let depth = 0; node !== undefined && depth < 64; depth++) {
    const body = object(node);
    const type = /\/Type\s*\/(Pages|Page)\b/.exec(body)?.[1];
    if (type === "Page") return remaining === 1 ? { num: node, body } : undefined;
    const kids = topLevelEntries(body).get("Kids")?.value ?? "";
    let chosen: number | undefined;
    for (const [, kid] of kids.matchAll(/(\d+)\s+0\s+R/g)) {
      const kidBody = object(Number(kid));
      const count = /\/Type\s*\/Pages\b/.test(kidBody) ? Number(/\/Count\s+(\d+)/.exec(kidBody)?.[1] ?? 0) : 1;
      if (remaining <= count) {
        chosen = Number(kid);
        break;
      }
      remaining -= count;
    }
    node = chosen;
  }
  return undefined;
}

/** The cross-reference tables from the last back through /Prev, newer entries first. */
function readXrefChain(text: string): XrefChain {
  const start = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  if (!Number.isInteger(start)) throw new SignPdfError("the file does not end with startxref and %%EOF");
  const offsets = new Map<number, number>();
  const freed = new Set<number>();
  let newest: string | undefined;
  const seen = new Set<number>();
  for (let at: number | undefined = start; at !== undefined; ) {
    if (seen.has(at) || seen.size > 256) throw new SignPdfError("the cross-reference chain loops");
    seen.add(at);
    // Some writers point at the end-of-line before the keyword.
    while (at < text.length && /\s/.test(text[at]!)) at++;
    if (!text.startsWith("xref", at)) {
      if (/^\d+\s+\d+\s+obj\b/.test(text.slice(at, at + 32)))
        throw new SignPdfError("the file uses a cross-reference stream, which this signer does not extend");
      throw new SignPdfError("a cross-reference table is not where the file says");
    }
    const trailerAt = text.indexOf("trailer", at);
    if (trailerAt < 0) throw new SignPdfError("a cross-reference table has no trailer");
    for (const [, first, rows] of text
      .slice(at + 4, trailerAt)
      .matchAll(/(\d+)\s+\d+\s*\r?\n((?:\d{10} \d{5} [nf]\s*\r?\n?)*)/g)) {
      let objectNum = Number(first);
      for (const row of (rows ?? "").matchAll(/(\d{10}) \d{5} ([nf])/g)) {
        if (!offsets.has(objectNum) && !freed.has(objectNum)) {
          if (row[2] === "n") offsets.set(objectNum, Number(row[1]));
          else freed.add(objectNum);
        }
        objectNum += 1;
      }
    }
    const dictAt = text.indexOf("<<", trailerAt);
    const trailer = text.slice(dictAt, dictEnd(text, dictAt));
    newest ??= trailer;
    if (/\/(Encrypt|XRefStm)\b/.test(trailer)) throw new SignPdfError("encrypted or hybrid files are not signed");
    const prev = /\/Prev\s+(\d+)/.exec(trailer)?.[1];
    at = prev === undefined ? undefined : Number(prev);
  }
  const size = Number(/\/Size\s+(\d+)/.exec(newest ?? "")?.[1]);
  const root = refOf(newest ?? "", "Root");
  if (!Number.isInteger(size) || root === undefined) throw new SignPdfError("the trailer has no /Size or /Root");
  return { offsets, trailer: newest!, start, size, root };
}

/** The text between `N 0 obj` and `endobj` (a dictionary or an array here; streams are not rewritten). */
function objectBody(text: string, at: number, num: number): string | undefined {
  const header = new RegExp(`^${num}\\s+0\\s+obj\\b`).exec(text.slice(at, at + 32));
  if (!header) return undefined;
  const end = text.indexOf("endobj", at);
  return end < 0 ? undefined : text.slice(at + header[0].length, end).trim();
}

interface Entry {
  /** Where the value starts and ends in the dictionary text. */
  start: number;
  end: number;
  value: string;
}

/** The keys of a dictionary's own level (nested dictionaries, arrays and strings skipped) with their values. */
export function topLevelEntries(dict: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const open = dict.indexOf("<<");
  if (open < 0) return entries;
  let i = open + 2;
  const skipSpace = () => {
    while (i < dict.length && /[\s]/.test(dict[i]!)) i++;
    if (dict[i] === "%") {
      while (i < dict.length && dict[i] !== "\n" && dict[i] !== "\r") i++;
    }
  };
  while (i < dict.length) {
    skipSpace();
    if (dict.startsWith(">>", i)) break;
    if (dict[i] !== "/") throw new SignPdfError("a dictionary could not be read");
    const keyMatch = /^\/([^\s/<>[\]()%{}]+)/.exec(dict.slice(i, i + 128));
    if (!keyMatch) throw new SignPdfError("a dictionary key could not be read");
    i += keyMatch[0].length;
    skipSpace();
    const start = i;
    i = valueEnd(dict, i);
    entries.set(keyMatch[1]!, { start, end: i, value: dict.slice(start, i) });
  }
  return entries;
}

/** The end of the value at `i`: a dictionary, array, string, name, number, or `N G R`. */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (text.startsWith("<<", i)) return dictEnd(text, i);
  if (c === "[") return bracketEnd(text, i);
  if (c === "(") return literalEnd(text, i);
  if (c === "<") return text.indexOf(">", i) + 1;
  const ref = /^\d+\s+\d+\s+R\b/.exec(text.slice(i, i + 40));
  if (ref) return i + ref[0].length;
  const token = /^\/?[^\s/<>[\]()%{}]*/.exec(text.slice(i))!;
  return i + Math.max(token[0].length, 1);
}

function dictEnd(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; ) {
    if (text.startsWith("<<", j)) {
      depth++;
      j += 2;
    } else if (text.startsWith(">>", j)) {
      depth--;
      j += 2;
      if (depth === 0) return j;
    } else if (text[j] === "(") j = literalEnd(text, j);
    else if (text[j] === "<") j = text.indexOf(">", j) + 1;
    else j++;
  }
  throw new SignPdfError("a dictionary does not end");
}

function bracketEnd(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; ) {
    const c = text[j];
    if (c === "(") j = literalEnd(text, j);
    else if (text.startsWith("<<", j)) j = dictEnd(text, j);
    else if (c === "<") j = text.indexOf(">", j) + 1;
    else {
      if (c === "[") depth++;
      if (c === "]" && --depth === 0) return j + 1;
      j++;
    }
  }
  throw new SignPdfError("an array does not end");
}

function literalEnd(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === "\\") j++;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j + 1;
  }
  throw new SignPdfError("a string does not end");
}

const withEntry = (dict: string, key: string, value: string): string => {
  const end = dict.lastIndexOf(">>");
  return `${dict.slice(0, end)} /${key} ${value}${dict.slice(end)}`;
};

const replaceValue = (dict: string, entry: Entry, value: string): string =>
  `${dict.slice(0, entry.start)}${value}${dict.slice(entry.end)}`;

const appendToArray = (array: string, num: number): string => `${array.slice(0, array.lastIndexOf("]"))} ${num} 0 R]`;

const refNumber = (value: string): number | undefined => {
  const match = /^(\d+)\s+0\s+R$/.exec(value.trim());
  return match ? Number(match[1]) : undefined;
};

function refOf(dict: string, key: string): number | undefined {
  const entry = topLevelEntries(dict).get(key);
  return entry ? refNumber(entry.value) : undefined;
}

function keptTrailerEntry(trailer: string, key: string): string {
  const entry = topLevelEntries(trailer).get(key);
  return entry ? ` /${key} ${entry.value}` : "";
}

/** A number as PDF writes it: at most 2 decimals, no exponent. */
const num = (n: number): string => String(Math.round(n * 100) / 100);

/**
 * A PDF text string: printable ASCII as a literal string, anything else UTF-16BE with a byte-order mark,
 * in hex (any characters, nothing to escape).
 */
function textString(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return `(${literal(value)})`;
  return `<${Buffer.from(`\ufeff${value}`, "utf16le").swap16().toString("hex").toUpperCase()}>`;
}

/** A literal string of Latin-1 text (WinAnsi covers it), parentheses and backslashes escaped. */
function literal(line: string): string {
  return line.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\xff]/g, "?");
}

/** D:YYYYMMDDHHmmSSZ, the signing time in UTC. */
export function pdfDate(date: Date): string {
  return `D:${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
}
