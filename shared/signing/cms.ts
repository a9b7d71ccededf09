import { createHash, type KeyObject, sign } from "node:crypto";
import type { SigningIdentity } from "./identity.ts";
import { SignPdfError } from "./signing-errors.ts";

const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  signatureTimeStamp: "1.2.840.113549.1.9.16.2.14",
  sha256: "2.16.840.1.101.3.4.2.1",
  sha384: "2.16.840.1.101.3.4.2.2",
  sha512: "2.16.840.1.101.3.4.2.3",
  sha256WithRsa: "1.2.840.113549.1.1.11",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  ecdsaWithSha384: "1.2.840.10045.4.3.3",
  ecdsaWithSha512: "1.2.840.10045.4.3.4",
} as const;

/**
 * The digest and signature algorithm of a key: SHA-256 with RSA and P-256, the curve's strength with
 * P-384 (SHA-384) and P-521 (SHA-512). One digest serves the message-digest and the signed attributes,
 * as verifiers (OpenSSL, NSS) hash both with the SignerInfo's digestAlgorithm.
 */
const ALGORITHMS = {
  rsa: { hash: "sha256", digest: OID.sha256, signature: OID.sha256WithRsa, params: true },
  prime256v1: { hash: "sha256", digest: OID.sha256, signature: OID.ecdsaWithSha256, params: false },
  secp384r1: { hash: "sha384", digest: OID.sha384, signature: OID.ecdsaWithSha384, params: false },
  secp521r1: { hash: "sha512", digest: OID.sha512, signature: OID.ecdsaWithSha512, params: false },
} as const;

function algorithmsOf(key: KeyObject): (typeof ALGORITHMS)[keyof typeof ALGORITHMS] {
  const kind = key.asymmetricKeyType === "ec" ? key.asymmetricKeyDetails?.namedCurve : key.asymmetricKeyType;
  const found =
    kind !== undefined && Object.hasOwn(ALGORITHMS, kind) ? ALGORITHMS[kind as keyof typeof ALGORITHMS] : undefined;
  // identity.ts accepts only these; anything else (RSA-PSS, Ed25519) would get a mislabelled signature.
  if (!found) throw new SignPdfError(`a ${kind ?? "unknown"} key cannot sign a PAdES signature here`);
  return found;
}

/** A CAdES signature before its optional time-stamp: its parts, and the signature value to stamp. */
export interface CadesSignature {
  /** The SignerInfo's signature value: what an RFC 3161 time-stamp covers (signature-time-stamp). */
  signatureValue: Buffer;
  /** The SignerInfo's DER fields up to its signature value. */
  signerInfoFields: Buffer[];
  /** The digest AlgorithmIdentifier, DER. */
  digestAlgorithm: Buffer;
  /** The chain's certificates, DER. */
  certificates: Buffer[];
  /** B-T: the RFC 3161 token (a ContentInfo, DER). */
  timeStampToken?: Buffer;
}

/**
 * A detached CMS SignedData over `content` as PAdES baseline B-B wants it (ETSI EN 319 142-1, CAdES
 * EN 319 122-1): SHA-256 (SHA-384, SHA-512 with a P-384, P-521 key); signed attributes content-type
 * (id-data), message-digest and ESS signing-certificate-v2 (RFC 5035) — no signing-time, the time is the
 * signature dictionary's /M; the whole chain in `certificates`. RSA PKCS#1 v1.5 or ECDSA, signed with
 * node:crypto. Written as DER here: the certificates go in as their own bytes, never parsed and re-encoded
 * (with pkijs that was two thirds of a B-B signature's cost).
 * @throws SignPdfError for a key type it cannot label, or a leaf certificate it cannot read
 */
export function signDetached(content: Buffer[], identity: SigningIdentity): CadesSignature {
  const algorithms = algorithmsOf(identity.privateKey);
  const digest = content.reduce((hash, part) => hash.update(part), createHash(algorithms.hash)).digest();
  const leaf = identity.chain[0];
  if (!leaf) throw new SignPdfError("the identity has no certificate");
  const certHash = createHash("sha256").update(leaf.raw).digest();
  const attributes = [
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, tlv(OCTET_STRING, digest)),
    // SigningCertificateV2 { certs SEQUENCE OF ESSCertIDv2 { certHash } }: SHA-256, the default hashAlgorithm,
    // so omitted as DER wants; no issuerSerial, as EN 319 122-1 advises (the sid names the signer).
    attribute(OID.signingCertificateV2, sequence(sequence(sequence(tlv(OCTET_STRING, certHash))))),
  ].sort(Buffer.compare); // DER orders a SET OF by its elements' encodings
  // What is signed is the attributes' DER as a SET (RFC 5652 §5.4); the SignerInfo holds them as [0] IMPLICIT.
  const signedAttributes = tlv(SET, ...attributes);
  const signatureValue = sign(algorithms.hash, signedAttributes, identity.privateKey); // ECDSA: DER (r, s)
  const digestAlgorithm = algorithmIdentifier(algorithms.digest, false);
  const signerInfoFields = [
    integer(1),
    sequence(...issuerAndSerial(leaf.raw)),
    digestAlgorithm,
    tlv(CONTEXT_0, signedAttributes.subarray(headerLength(signedAttributes))),
    algorithmIdentifier(algorithms.signature, algorithms.params),
    tlv(OCTET_STRING, signatureValue),
  ];
  return { signatureValue, signerInfoFields, digestAlgorithm, certificates: identity.chain.map((c) => c.raw) };
}

/**
 * Adds an RFC 3161 token as the unsigned attribute signature-time-stamp (B-T).
 * @throws Error when the token is not one DER SEQUENCE
 */
export function addSignatureTimeStamp(signature: CadesSignature, token: Buffer): void {
  if (token[0] !== SEQUENCE || readTlv(token, 0).end !== token.length)
    throw new Error("the time-stamp token is not one DER SEQUENCE");
  signature.timeStampToken = token;
}

/** The ContentInfo of the SignedData, DER: what goes into the signature dictionary's /Contents. */
export function encodeSignature(signature: CadesSignature): Buffer {
  const unsigned = signature.timeStampToken
    ? [tlv(CONTEXT_1, attribute(OID.signatureTimeStamp, signature.timeStampToken))]
    : [];
  const signerInfo = sequence(...signature.signerInfoFields, ...unsigned);
  // version 1: the signer is named by issuer and serial number, the content is id-data, no attribute certificates.
  const signedData = sequence(
    integer(1),
    tlv(SET, signature.digestAlgorithm),
    sequence(oid(OID.data)),
    // A SET OF in DER order, as OpenSSL re-encodes it; verifiers find the signer by the sid, not by position.
    tlv(CONTEXT_0, ...[...signature.certificates].sort(Buffer.compare)),
    tlv(SET, signerInfo),
  );
  return sequence(oid(OID.signedData), tlv(CONTEXT_0, signedData));
}

const INTEGER = 0x02;
const OCTET_STRING = 0x04;
const NULL = 0x05;
const OBJECT_IDENTIFIER = 0x06;
const SEQUENCE = 0x30;
const SET = 0x31;
/** [0] and [1], constructed: IMPLICIT SET OF (certificates, signedAttrs, unsignedAttrs) and EXPLICIT content. */
const CONTEXT_0 = 0xa0;
const CONTEXT_1 = 0xa1;

/** One DER element: tag, definite length, content. */
function tlv(tag: number, ...content: Buffer[]): Buffer {
  const length = content.reduce((n, part) => n + part.length, 0);
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else {
    const bytes: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
    header = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([header, ...content]);
}

const sequence = (...content: Buffer[]): Buffer => tlv(SEQUENCE, ...content);

const integer = (value: number): Buffer => tlv(INTEGER, Buffer.from([value]));

/** An OBJECT IDENTIFIER from its dotted form (base-128 arcs, the first two combined). */
function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const group = [arc % 128];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) group.unshift((n % 128) | 0x80);
    bytes.push(...group);
  }
  return tlv(OBJECT_IDENTIFIER, Buffer.from(bytes));
}

/** Attribute ::= SEQUENCE { attrType OID, attrValues SET OF value } with one value. */
const attribute = (type: string, value: Buffer): Buffer => sequence(oid(type), tlv(SET, value));

/**
 * An AlgorithmIdentifier: sha256WithRSAEncryption carries an explicit NULL (RFC 4055); the SHA-2 digests
 * (RFC 5754) and ECDSA (RFC 5758) have their parameters absent.
 */
const algorithmIdentifier = (algorithm: string, withNull: boolean): Buffer =>
  withNull ? sequence(oid(algorithm), Buffer.from([NULL, 0])) : sequence(oid(algorithm));

interface Tlv {
  tag: number;
  /** Where the element starts, where its content starts, where it ends. */
  start: number;
  content: number;
  end: number;
}

/** The DER element at `at` (definite lengths only, as DER has). @throws SignPdfError past the end */
function readTlv(der: Buffer, at: number): Tlv {
  const tag = der[at];
  let length = der[at + 1];
  let content = at + 2;
  if (tag === undefined || length === undefined) throw new SignPdfError("the certificate could not be read");
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || content + count > der.length)
      throw new SignPdfError("the certificate could not be read");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[content + i]!;
    content += count;
  }
  const end = content + length;
  if (end > der.length) throw new SignPdfError("the certificate could not be read");
  return { tag, start: at, content, end };
}

const headerLength = (der: Buffer): number => readTlv(der, 0).content;

/**
 * The leaf certificate's issuer Name and serialNumber, as their own DER bytes (IssuerAndSerialNumber):
 * Certificate { tbsCertificate { [0] version?, serialNumber, signature, issuer, … }, … }.
 */
function issuerAndSerial(certificate: Buffer): [Buffer, Buffer] {
  const tbs = readTlv(certificate, readTlv(certificate, 0).content);
  let field = readTlv(certificate, tbs.content);
  if (field.tag === CONTEXT_0) field = readTlv(certificate, field.end);
  const serial = field;
  const issuer = readTlv(certificate, readTlv(certificate, serial.end).end);
  if (serial.tag !== INTEGER || issuer.tag !== SEQUENCE) throw new SignPdfError("the certificate could not be read");
  return [certificate.subarray(issuer.start, issuer.end), certificate.subarray(serial.start, serial.end)];
}

export { OID as CMS_OIDS };
