import { createHash, randomBytes } from "node:crypto";
import { deflateSync } from "node:zlib";
import { keywordsText, type DocumentInfo } from "./document-info.ts";
import { checkArchiveOptions, type PdfArchiveOptions, PdfArchiveError, type PdfAttachment } from "./pdf-a-options.ts";
import {
  appendUpdate,
  type PdfValue,
  plainString,
  textString,
  type UpdateContext,
  type UpdateExtension,
} from "./pdf-increment.ts";
import { type PostprocessOptions, SEARCH_METADATA_KEY } from "./pdf-postprocess.ts";
import { SRGB_DESCRIPTION, srgbIccProfile } from "./srgb-icc.ts";
import { buildXmp, pdfDate, xmlSafeText } from "./xmp.ts";

/**
 * Post-processing with the archival pass (pdf-postprocess.ts calls it for a document that asks for PDF/A or
 * attachments): one incremental update on Chromium's bytes; a PDF of another shape is first rewritten with
 * `@cantoo/pdf-lib` (classic cross-reference table), then updated the same way.
 * @throws PdfArchiveError (options that contradict each other; a PDF that cannot be made PDF/A)
 */
export async function archivePdf(
  pdf: Uint8Array,
  options: PostprocessOptions,
  info: Record<string, PdfValue>,
  metadata: string,
): Promise<{ pdf: Buffer; pageCount: number }> {
  checkArchiveOptions(options);
  const extension = archiveExtension(options, options, options.now ?? new Date());
  const entries = { ...info, ...(metadata && { [SEARCH_METADATA_KEY]: plainString(metadata) }) };
  let updated: { pdf: Buffer; pageCount: number } | undefined;
  try {
    updated = appendUpdate(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength), entries, extension);
  } catch (error) {
    if (error instanceof PdfArchiveError) throw error;
    updated = undefined; // e.g. a stream that does not inflate: the library rewrites the file first
  }
  if (updated) return updated;
  const { rewriteWithPdfLib } = await import("./pdf-rewrite.ts");
  const rewritten = await rewriteWithPdfLib(pdf, info, metadata);
  const again = appendUpdate(rewritten.pdf, entries, extension);
  if (!again) throw notPossible("its structure is not one the update can extend");
  return again;
}

/**
 * PDF/A-2b / PDF/A-3b and embedded files, written as part of post-processing's one incremental update
 * (pdf-increment.ts; an incremental update is allowed in PDF/A): an sRGB OutputIntent, the XMP packet in
 * step with the Info dictionary, the trailer's `/ID`, printable annotations, and each attachment as an
 * associated file. What is and is not checked: shared/render/README.md#pdfa-and-embedded-files.
 * Loaded by post-processing only for a document that asks for it.
 *
 * @returns the extension `appendUpdate` calls with the parsed file. @throws PdfArchiveError
 * PDFA_NOT_POSSIBLE when the printed PDF cannot be made PDF/A (a font not embedded, a forbidden action).
 */
export function archiveExtension(
  options: PdfArchiveOptions,
  info: DocumentInfo,
  now: Date,
): (context: UpdateContext) => UpdateExtension | undefined {
  return (context) => {
    const annotations = checkObjects(context);
    const catalog = bodyOf(context.object(context.root));
    if (catalog === undefined || !catalog.endsWith(">>")) return undefined;
    const objects: UpdateExtension["objects"] = [...annotations];
    const written = archiveInfo(info, context.info, now);
    const metadata = context.newObject();
    objects.push({
      num: metadata,
      body: streamObject("/Type /Metadata /Subtype /XML", buildXmp(xmpFields(options, written))),
    });
    const icc = context.newObject();
    objects.push({ num: icc, body: streamObject("/N 3 /Filter /FlateDecode", srgbIccProfile().deflated) });
    const entries = [
      `/Metadata ${metadata} 0 R`,
      `/OutputIntents [<</Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (${SRGB_DESCRIPTION}) /RegistryName (http://www.color.org) /Info (${SRGB_DESCRIPTION}) /DestOutputProfile ${icc} 0 R>>]`,
    ];
    let newCatalog = catalog.replace(/\/(Metadata\s+\d+\s+\d+\s+R|OutputIntents\s*\[[^\]]*\]|AF\s*\[[^\]]*\])/g, "");
    const files = (options.attachments ?? []).map((file) => embedFile(context, objects, file, now));
    if (files.length > 0) {
      if (/\/Names\b/.test(newCatalog)) throw notPossible("the printed PDF already has a /Names dictionary");
      const names = [...files].sort((a, b) => Buffer.compare(a.key, b.key));
      entries.push(
        `/AF [${files.map((f) => `${f.num} 0 R`).join(" ")}]`,
        `/Names <</EmbeddedFiles <</Names [${names.map((f) => `${f.keyText} ${f.num} 0 R`).join(" ")}]>>>>`,
      );
    }
    newCatalog = `${newCatalog.slice(0, -2)}\n${entries.join("\n")}>>`;
    objects.push({ num: context.root, body: newCatalog });
    const first = context.id ?? randomBytes(16).toString("hex");
    return {
      info: infoEntries(written),
      objects,
      trailer: `/ID [<${first}> <${randomBytes(16).toString("hex")}>]`,
    };
  };
}

/** The values written both into the Info dictionary and into the XMP packet. */
interface ArchiveInfo {
  title: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creator?: string;
  producer?: string;
  date: Date;
}

/** The document's entries, XML-safe, with Chromium's Creator and Producer kept and one date for both dates. */
function archiveInfo(info: DocumentInfo, oldInfo: string | undefined, now: Date): ArchiveInfo {
  const date = new Date(Math.floor(now.getTime() / 1000) * 1000); // both forms carry whole seconds
  const creator = oldInfo && readInfoString(oldInfo, "Creator");
  const producer = oldInfo && readInfoString(oldInfo, "Producer");
  return {
    title: xmlSafeText(info.title),
    ...(info.author !== undefined && { author: xmlSafeText(info.author) }),
    ...(info.subject !== undefined && { subject: xmlSafeText(info.subject) }),
    ...(info.keywords?.length && { keywords: xmlSafeText(keywordsText(info.keywords)) }),
    ...(creator && { creator: xmlSafeText(creator) }),
    ...(producer && { producer: xmlSafeText(producer) }),
    date,
  };
}

function infoEntries(info: ArchiveInfo): Record<string, PdfValue> {
  const date = { text: `(${pdfDate(info.date)})` };
  return {
    Title: textString(info.title),
    ...(info.author !== undefined && { Author: textString(info.author) }),
    ...(info.subject !== undefined && { Subject: textString(info.subject) }),
    ...(info.keywords !== undefined && { Keywords: textString(info.keywords) }),
    ...(info.creator !== undefined && { Creator: textString(info.creator) }),
    ...(info.producer !== undefined && { Producer: textString(info.producer) }),
    CreationDate: date,
    ModDate: date,
  };
}

function xmpFields(options: PdfArchiveOptions, info: ArchiveInfo): Parameters<typeof buildXmp>[0] {
  return {
    part: options.standard === "PDF/A-2b" ? 2 : 3,
    conformance: "B",
    title: info.title,
    ...(info.author !== undefined && { author: info.author }),
    ...(info.subject !== undefined && { subject: info.subject }),
    ...(info.keywords !== undefined && { keywords: info.keywords }),
    ...(info.creator !== undefined && { creatorTool: info.creator }),
    ...(info.producer !== undefined && { producer: info.producer }),
    createDate: info.date,
    modifyDate: info.date,
    ...(options.facturX && { facturX: options.facturX }),
  };
}

/** The embedded file stream and its file specification; returns the name-tree key and the filespec's number. */
function embedFile(context: UpdateContext, objects: UpdateExtension["objects"], file: PdfAttachment, now: Date) {
  const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const stream = context.newObject();
  const params = `/Params <</ModDate (${pdfDate(now)}) /Size ${bytes.length} /CheckSum <${createHash("md5").update(bytes).digest("hex")}>>>`;
  objects.push({
    num: stream,
    body: streamObject(
      `/Type /EmbeddedFile /Subtype /${pdfName(file.mimeType)} ${params} /Filter /FlateDecode`,
      deflateSync(bytes),
    ),
  });
  const num = context.newObject();
  const key = fileNameString(file.name);
  const unicode = textString(file.name).text;
  objects.push({
    num,
    body: `<</Type /Filespec /F ${key.text} /UF ${unicode} /Desc ${textString(file.description ?? file.name).text} /AFRelationship /${file.relationship} /EF <</F ${stream} 0 R /UF ${stream} 0 R>>>>`,
  });
  return { num, keyText: key.text, key: key.bytes };
}

/** An ASCII name as a literal string (what Factur-X readers look up), any other as a UTF-16 text string. */
function fileNameString(name: string): { text: string; bytes: Buffer } {
  if (/^[\x20-\x7e]*$/.test(name) && !/[()\\]/.test(name))
    return { text: `(${name})`, bytes: Buffer.from(name, "latin1") };
  const { text } = textString(name);
  return { text, bytes: Buffer.from(text.slice(1, -1), "hex") };
}

/** A PDF name's characters: regular ones as they are, the rest (here `/` of a MIME type) as `#xx`. */
function pdfName(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((b) =>
      b > 0x20 && b < 0x7f && !"()<>[]{}/%#".includes(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `#${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

function streamObject(entries: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<<${entries} /Length ${data.length}>> stream\n`, "latin1"),
    data,
    Buffer.from("\nendstream", "latin1"),
  ]);
}

const FORBIDDEN_ACTION =
  /\/S\s*\/(JavaScript|Launch|Sound|Movie|ResetForm|ImportData|Hide|SetOCGState|Rendition|Trans|GoTo3DView)\b/;
const STANDARD_FLAGS = { invisible: 1, hidden: 2, print: 4, noView: 32 };

/**
 * Every object's dictionary: a font without its program, or a forbidden action, refuses the
 * document (Chromium embeds every font it draws with and runs no script: neither is expected);
 * an annotation that would not print is rewritten printable (`/F 4`).
 */
function checkObjects(context: UpdateContext): UpdateExtension["objects"] {
  const rewritten: UpdateExtension["objects"] = [];
  for (const num of context.objectNumbers()) {
    const object = context.object(num);
    if (object === undefined) continue;
    const dict = object.split(/\bstream\r?\n/, 1)[0] ?? "";
    if (FORBIDDEN_ACTION.test(dict) || /\/JS\s*[(<]/.test(dict))
      throw notPossible(`object ${num} holds an action PDF/A forbids`);
    if (/\/Type\s*\/FontDescriptor\b/.test(dict) && !/\/FontFile[23]?\s/.test(dict)) {
      throw notPossible(`a font is not embedded (${/\/FontName\s*\/([^\s/>]+)/.exec(dict)?.[1] ?? `object ${num}`})`);
    }
    if (
      /\/Type\s*\/Font\b/.test(dict) &&
      /\/Subtype\s*\/(Type1|TrueType|MMType1)\b/.test(dict) &&
      !/\/FontDescriptor\s/.test(dict)
    ) {
      throw notPossible(
        `a standard font is used without being embedded (${/\/BaseFont\s*\/([^\s/>]+)/.exec(dict)?.[1] ?? num})`,
      );
    }
    if (/\/Type\s*\/Annot\b/.test(dict)) {
      const printable = printableAnnotation(bodyOf(object) ?? "");
      if (printable !== undefined) rewritten.push({ num, body: printable });
    }
  }
  return rewritten;
}

/** The annotation with its print flag set and its hiding flags cleared; undefined when it already prints. */
function printableAnnotation(body: string): string | undefined {
  const flags = /\/F\s+(\d+)/.exec(body);
  const { invisible, hidden, print, noView } = STANDARD_FLAGS;
  if (!flags) return `${body.slice(0, -2)} /F ${print}>>`;
  const value = Number(flags[1]);
  const fixed = (value | print) & ~(invisible | hidden | noView);
  return fixed === value ? undefined : body.replace(flags[0], `/F ${fixed}`);
}

/** An object's body: the text between `N 0 obj` and `endobj`, trimmed. */
function bodyOf(object: string | undefined): string | undefined {
  return object?.replace(/^\d+\s+\d+\s+obj\s*/, "").trim();
}

/** A string entry of the Info dictionary, decoded (literal or hex, PDFDocEncoding's ASCII or UTF-16BE). */
export function readInfoString(dict: string, key: string): string | undefined {
  const match = new RegExp(`/${key}\\s*(\\((?:[^()\\\\]|\\\\[\\s\\S])*\\)|<[0-9A-Fa-f\\s]*>)`).exec(dict);
  if (!match?.[1]) return undefined;
  const raw = match[1];
  const bytes = raw.startsWith("<")
    ? Buffer.from(raw.slice(1, -1).replace(/\s/g, ""), "hex")
    : Buffer.from(unescapeLiteral(raw.slice(1, -1)), "latin1");
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2)).swap16().toString("utf16le");
  return bytes.toString("latin1");
}

function unescapeLiteral(text: string): string {
  const named: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f" };
  return text.replace(
    /\\(?:([0-7]{1,3})|(\r\n|\r|\n)|([\s\S]))/g,
    (_all, octal?: string, newline?: string, char?: string) => {
      if (octal) return String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      if (newline) return "";
      return named[char ?? ""] ?? char ?? "";
    },
  );
}

const notPossible = (why: string) => new PdfArchiveError("PDFA_NOT_POSSIBLE", `the PDF cannot be made PDF/A: ${why}`);
