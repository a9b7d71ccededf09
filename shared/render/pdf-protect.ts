import { createCipheriv, randomBytes } from "node:crypto";
// Types only: the library itself is imported on the first protected file.
import type { PDFDocument, PDFObject } from "@cantoo/pdf-lib";

/**
 * A content item's `protection` (shared/render/README.md#password-protection): the passwords and what a
 * reader who opened the file with the user password (or none) may do.
 */
export interface PdfProtection {
  /** Needed to open the file; without it the file opens freely and only the permissions hold. */
  password?: string;
  /** Lifts the permissions; a random one, never kept, when absent. */
  ownerPassword?: string;
  allowPrinting: boolean;
  allowCopying: boolean;
  allowModifying: boolean;
}

/** Random owner passwords: 32 bytes as base64url, far beyond guessing, then forgotten. */
const randomOwnerPassword = () => randomBytes(32).toString("base64url");

/**
 * Encrypts a finished PDF with the PDF 2.0 standard security handler (AES-256, revision 6).
 * Every object is rewritten, so Chromium's structure tree, `/MarkInfo`, `/Lang`, the outline
 * and the Info entries post-processing wrote all stay; only their strings and streams are
 * encrypted. @cantoo/pdf-lib is loaded on the first protected file: unprotected renders (and
 * cold starts) never evaluate it.
 */
export async function protectPdf(pdf: Uint8Array, protection: PdfProtection): Promise<Buffer> {
  const lib = await import("@cantoo/pdf-lib");
  const { PDFDocument, ParseSpeeds } = lib;
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  doc.encrypt({
    algorithm: "AES-256",
    // An empty user password is how the handler says "opens without one".
    userPassword: protection.password ?? "",
    ownerPassword: protection.ownerPassword ?? randomOwnerPassword(),
    permissions: {
      printing: protection.allowPrinting ? "highResolution" : false,
      copying: protection.allowCopying,
      // Editing in every form a viewer offers: content, annotations, form fields, page assembly.
      modifying: protection.allowModifying,
      annotating: protection.allowModifying,
      fillingForms: protection.allowModifying,
      documentAssembly: protection.allowModifying,
      // Screen readers keep working whatever is set: PDF 2.0 asks readers to ignore a cleared bit
      // here, and a tagged PDF exists for them.
      contentAccessibility: true,
    },
  });
  useNativeCipher(doc);
  encryptStrings(lib, doc);
  const bytes = await doc.save({ useObjectStreams: false, objectsPerTick: Number.POSITIVE_INFINITY });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

type PdfLib = typeof import("@cantoo/pdf-lib");

/**
 * The handler's cipher (AESV3: AES-256-CBC with a random 16-byte IV before the data, PKCS#7
 * padding, the file key for every object) through Node's OpenSSL instead of the library's
 * JavaScript AES, which took ~18 ms of the ~25 ms a protected one-page invoice cost (measured with
 * --cpu-prof). Only the primitive changes: the library still derives the key, the password
 * entries and the permissions. A library whose handler is not V 5 or whose key is not where this
 * expects keeps its own function.
 */
function useNativeCipher(doc: PDFDocument): void {
  const security = doc.context.security as unknown as
    | { encryption?: { V?: number }; encryptionKey?: Uint8Array; getEncryptFn: unknown }
    | undefined;
  const key = security?.encryptionKey;
  if (security?.encryption?.V !== 5 || !(key instanceof Uint8Array) || key.length !== 32) return;
  const encrypt = (bytes: Uint8Array): Uint8Array => {
    const iv = randomBytes(16);
    const cipher = createCipheriv("aes-256-cbc", key, iv);
    return Buffer.concat([iv, cipher.update(bytes), cipher.final()]);
  };
  security.getEncryptFn = () => encrypt;
}

/**
 * The library's writer encrypts stream contents only; the handler also covers every string
 * outside them (Info entries, outline titles, `/Alt`, `/Lang`, link URIs), which a reader then
 * decrypts — so a string left in clear reads back as noise. Encrypted here, before saving, with
 * the same per-object function the writer uses for streams (AES-256-CBC, a random IV per
 * string). The encryption dictionary itself stays in clear, as the handler requires.
 */
function encryptStrings(lib: PdfLib, doc: PDFDocument): void {
  const { PDFArray, PDFDict, PDFHexString, PDFRef, PDFStream, PDFString } = lib;
  const { context } = doc;
  const security = context.security;
  const encryptRef = context.trailerInfo.Encrypt;
  if (!security || !(encryptRef instanceof PDFRef)) throw new Error("the document was not set up for encryption");
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (ref === encryptRef) continue;
    const encryptFn = security.getEncryptFn(ref.objectNumber, ref.generationNumber);
    const seal = (value: PDFObject): PDFObject | undefined => {
      if (value instanceof PDFString || value instanceof PDFHexString) {
        return PDFHexString.of(Buffer.from(encryptFn(value.asBytes())).toString("hex"));
      }
      if (value instanceof PDFDict) {
        for (const [key, inner] of value.entries()) {
          const sealed = seal(inner);
          if (sealed) value.set(key, sealed);
        }
      } else if (value instanceof PDFArray) {
        for (let i = 0; i < value.size(); i++) {
          const sealed = seal(value.get(i));
          if (sealed) value.set(i, sealed);
        }
      }
      return undefined;
    };
    seal(object instanceof PDFStream ? object.dict : object);
  }
}
