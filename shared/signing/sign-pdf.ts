import { addSignatureTimeStamp, encodeSignature, signDetached } from "./cms.ts";
import type { SigningIdentity } from "./identity.ts";
import { embedSignature, prepareSignature, type SignatureBox, signedParts } from "./pdf-signature.ts";
import { SignPdfError } from "./signing-errors.ts";
import type { TimestampAuthority } from "./timestamp.ts";

/** How to sign one PDF (shared/signing/README.md#signing). */
export interface SignOptions {
  identity: SigningIdentity;
  level: "B-B" | "B-T";
  /** The signature dictionary's /M: CAdES baseline signs no signing-time attribute. */
  signingTime: Date;
  reason?: string;
  location?: string;
  contactInfo?: string;
  /** A visible box in PDF points from the page's top-left corner; absent, the signature is invisible. */
  visible?: SignatureBox;
  /** The time-stamp authority: required for B-T. */
  timestamp?: TimestampAuthority;
}

/** Room in /Contents beyond the chain: the signed attributes, a 4096-bit signature value, the structure. */
const SIGNATURE_OVERHEAD = 2048;
/** Room for an RFC 3161 token: its TSTInfo, the TSA's signature and certificates. */
const TIMESTAMP_ROOM = 12_288;

/**
 * Signs a finished PDF as PAdES baseline B-B or B-T (ETSI EN 319 142-1): an incremental update with a
 * signature dictionary (SubFilter ETSI.CAdES.detached) whose /Contents is a detached CMS SignedData over
 * the file's ByteRange (cms.ts); for B-T an RFC 3161 time-stamp on the signature value (timestamp.ts).
 * @throws SignPdfError (this PDF or these options cannot be signed) or TimestampError (B-T's TSA)
 */
export async function signPdf(
  pdf: Buffer,
  options: SignOptions,
): Promise<{ pdf: Buffer; signedAt: Date; subject: string }> {
  if (options.level === "B-T" && !options.timestamp) throw new SignPdfError("level B-T needs a time-stamp authority");
  const leaf = options.identity.chain[0];
  if (!leaf) throw new SignPdfError("the identity has no certificate");
  const chainBytes = options.identity.chain.reduce((n, cert) => n + cert.raw.length, 0);
  let capacity = chainBytes + SIGNATURE_OVERHEAD + (options.level === "B-T" ? TIMESTAMP_ROOM : 0);
  const fields = {
    signingTime: options.signingTime,
    ...(options.reason !== undefined && { reason: options.reason }),
    ...(options.location !== undefined && { location: options.location }),
    ...(options.contactInfo !== undefined && { contactInfo: options.contactInfo }),
    ...(options.visible && {
      visible: { ...options.visible, lines: appearanceLines(leaf.subject, options.signingTime) },
    }),
  };
  // A second pass only if a TSA's token was larger than foreseen: never a truncated signature.
  for (let pass = 0; pass < 2; pass++) {
    const prepared = prepareSignature(pdf, fields, capacity);
    const signature = signDetached(signedParts(prepared), options.identity);
    if (options.level === "B-T") {
      // pkijs (the time-stamp's request and answer) is loaded by B-T only: B-B needs none of it.
      const { requestTimestamp } = await import("./timestamp.ts");
      addSignatureTimeStamp(signature, await requestTimestamp(signature.signatureValue, options.timestamp!));
    }
    const der = encodeSignature(signature);
    if (der.length <= capacity) {
      return { pdf: embedSignature(prepared, der), signedAt: options.signingTime, subject: subjectText(leaf.subject) };
    }
    capacity = der.length + 1024;
  }
  throw new SignPdfError("the signature did not fit its placeholder");
}

/** "CN=Example Co., Ltd.\nO=Example" → "CN=Example Co., Ltd., O=Example" (X509Certificate's lines). */
const subjectText = (subject: string): string => subject.replaceAll("\n", ", ");

/**
 * The visible box's lines, in the standard Helvetica (WinAnsi): the signer's common name when Latin-1
 * can write it (a Japanese name cannot: readers show it in their signature panel), and the time in UTC.
 */
function appearanceLines(subject: string, signingTime: Date): string[] {
  const name = /^CN=(.*)$/m.exec(subject)?.[1];
  const time = `${signingTime.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  const latin1 = name !== undefined && /^[\x20-\x7e\xa0-\xff]+$/.test(name);
  return ["Digitally signed", ...(latin1 ? [`by ${name}`] : []), time];
}
