/**
 * What a caller may ask of the archival pass (shared/render/README.md#pdfa-and-embedded-files),
 * and the rules between those options. Types and checks only, no PDF code: request validation
 * can import it without loading the writer (`pdf-a.ts`, loaded by post-processing on demand).
 */

/** PDF/A-2b (ISO 19005-2, level B) or PDF/A-3b (ISO 19005-3: the same plus embedded files of any type). */
export type PdfStandard = "PDF/A-2b" | "PDF/A-3b";

/** How an embedded file relates to the document (ISO 32000-2 `AFRelationship`). */
export type AfRelationship = "Source" | "Data" | "Alternative" | "Supplement" | "Unspecified";

/** A file embedded in the PDF and associated with the whole document (`/AF` of the catalog). */
export interface PdfAttachment {
  /** File name as readers list it, e.g. `factur-x.xml`. */
  name: string;
  bytes: Uint8Array;
  /** MIME type, e.g. `text/xml`: written as the embedded file's `/Subtype`. */
  mimeType: string;
  relationship: AfRelationship;
  description?: string;
}

/** Factur-X (= ZUGFeRD 2.x) profile names, as the `fx:ConformanceLevel` XMP property spells them. */
export type FacturXLevel = "MINIMUM" | "BASIC WL" | "BASIC" | "EN 16931" | "EXTENDED";

/** Declares the PDF a Factur-X invoice: the `fx` XMP properties naming its embedded XML. */
export interface FacturXDescriptor {
  documentType: "INVOICE";
  /** The attachment holding the XML; Factur-X names it `factur-x.xml`. */
  fileName: string;
  /** Version of the Factur-X XML schema, `1.0` for every Factur-X 1.0x release. */
  version: string;
  conformanceLevel: FacturXLevel;
}

/** The archival options of one document (on `postprocessPdf` and on a render request). */
export interface PdfArchiveOptions {
  standard?: PdfStandard;
  attachments?: PdfAttachment[];
  facturX?: FacturXDescriptor;
}

export type PdfArchiveErrorCode =
  /** PDF/A forbids encryption: a request cannot ask for both. */
  | "PDFA_WITH_PROTECTION"
  /** Attachments (or Factur-X) without PDF/A-3b: PDF/A-2b admits no such files, and plain PDFs get none either. */
  | "ATTACHMENTS_NEED_PDFA3"
  /** An attachment with an empty or repeated name, a malformed MIME type, or a Factur-X descriptor naming no attachment. */
  | "ATTACHMENT_INVALID"
  /** The printed PDF cannot be made PDF/A: a font not embedded, a forbidden action, a structure the writer does not update. */
  | "PDFA_NOT_POSSIBLE";

/**
 * Why archival options were refused. `field` names the request field at fault (e.g.
 * `content.protection`), so request validation can answer 400 VALIDATION_FAILED on it.
 */
export class PdfArchiveError extends Error {
  readonly code: PdfArchiveErrorCode;
  readonly field?: string;

  constructor(code: PdfArchiveErrorCode, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PdfArchiveError";
    this.code = code;
    if (options?.field !== undefined) this.field = options.field;
  }
}

/** True when the options ask for any archival work (otherwise post-processing takes its usual path). */
export const wantsArchive = (options: PdfArchiveOptions): boolean =>
  options.standard !== undefined || (options.attachments?.length ?? 0) > 0 || options.facturX !== undefined;

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/**
 * The rules between the options: PDF/A never with protection, attachments and Factur-X only with
 * PDF/A-3b, attachment names unique and non-empty, MIME types well formed, the Factur-X descriptor
 * naming one of the attachments. @throws PdfArchiveError
 */
export function checkArchiveOptions(options: PdfArchiveOptions, protection?: unknown): void {
  if (!wantsArchive(options)) return;
  if (protection !== undefined) {
    throw new PdfArchiveError(
      "PDFA_WITH_PROTECTION",
      "a PDF/A document cannot be password-protected (PDF/A forbids encryption)",
      {
        field: "content.protection",
      },
    );
  }
  const attachments = options.attachments ?? [];
  if ((attachments.length > 0 || options.facturX) && options.standard !== "PDF/A-3b") {
    throw new PdfArchiveError(
      "ATTACHMENTS_NEED_PDFA3",
      `embedded files need PDF/A-3b (${options.standard ?? "no standard"} was asked for: PDF/A-2b admits no embedded files but PDF/A ones)`,
      { field: "attachments" },
    );
  }
  const names = new Set<string>();
  for (const file of attachments) {
    if (file.name.trim() === "" || names.has(file.name)) {
      throw new PdfArchiveError(
        "ATTACHMENT_INVALID",
        `attachment names must be non-empty and unique ("${file.name}")`,
        { field: "attachments" },
      );
    }
    names.add(file.name);
    if (!MIME_TYPE.test(file.mimeType)) {
      throw new PdfArchiveError(
        "ATTACHMENT_INVALID",
        `"${file.mimeType}" is not a MIME type (attachment "${file.name}")`,
        { field: "attachments" },
      );
    }
  }
  if (options.facturX) checkFacturX(options.facturX, attachments);
}

/** The descriptor names an attachment, which is XML with the relationship its profile prescribes. */
function checkFacturX(facturX: FacturXDescriptor, attachments: PdfAttachment[]): void {
  const xml = attachments.find((file) => file.name === facturX.fileName);
  const refuse: (why: string) => never = (why) => {
    throw new PdfArchiveError("ATTACHMENT_INVALID", `Factur-X: ${why}`, { field: "attachments" });
  };
  if (!xml) refuse(`the XML "${facturX.fileName}" is not among the attachments`);
  if (xml.mimeType !== "text/xml") refuse(`"${xml.name}" must be text/xml, not ${xml.mimeType}`);
  const expected = facturXRelationship(facturX.conformanceLevel);
  if (xml.relationship !== expected) {
    refuse(`the ${facturX.conformanceLevel} profile's XML is associated as ${expected}, not ${xml.relationship}`);
  }
}

/**
 * The `AFRelationship` Factur-X 1.07 (= ZUGFeRD 2.3) prescribes for its XML: `Alternative` for the
 * profiles that are invoices in their own right (BASIC, EN 16931, EXTENDED: the XML and the PDF are
 * two forms of the same invoice), `Data` for MINIMUM and BASIC WL (the XML carries only part of the
 * PDF's content). `Source` is allowed instead of `Alternative` only when the PDF was made from the
 * XML; Platen prints it from the design's template, so it never applies.
 */
export function facturXRelationship(level: FacturXLevel): AfRelationship {
  return level === "MINIMUM" || level === "BASIC WL" ? "Data" : "Alternative";
}
