import { createHash, type KeyObject, sign } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { SigningIdentity } from "./identity.ts";
import { toArrayBuffer } from "./pkcs12.ts";
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

/** A CAdES signature before its optional time-stamp: the SignedData and the signature value to stamp. */
export interface CadesSignature {
  signedData: pkijs.SignedData;
  /** The SignerInfo's signature value: what an RFC 3161 time-stamp covers (signature-time-stamp). */
  signatureValue: Buffer;
}

/**
 * A detached CMS SignedData over `content` as PAdES baseline B-B wants it (ETSI EN 319 142-1, CAdES
 * EN 319 122-1): SHA-256 (SHA-384, SHA-512 with a P-384, P-521 key); signed attributes content-type (id-data), message-digest and ESS
 * signing-certificate-v2 (RFC 5035) — no signing-time, the time is the signature dictionary's /M; the
 * whole chain in `certificates`. RSA PKCS#1 v1.5 or ECDSA, signed with node:crypto.
 */
export function signDetached(content: Buffer[], identity: SigningIdentity): CadesSignature {
  const algorithms = algorithmsOf(identity.privateKey);
  const digest = content.reduce((hash, part) => hash.update(part), createHash(algorithms.hash)).digest();
  const leaf = identity.chain[0]!;
  const attributes = sortedForDer([
    attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.data })),
    attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: toArrayBuffer(digest) })),
    attribute(OID.signingCertificateV2, signingCertificateV2(leaf.raw)),
  ]);
  // What is signed is the attributes' DER as a SET (RFC 5652 §5.4), not their [0] IMPLICIT form.
  const toSign = Buffer.from(new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER());
  const signatureValue = sign(algorithms.hash, toSign, identity.privateKey); // ECDSA: DER (r, s), as CMS wants
  const certificates = identity.chain.map((c) => pkijs.Certificate.fromBER(toArrayBuffer(c.raw)));
  const signer = certificates[0]!;
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
    digestAlgorithm: algorithm(algorithms.digest, false),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
    signatureAlgorithm: algorithm(algorithms.signature, algorithms.params),
    signature: new asn1js.OctetString({ valueHex: toArrayBuffer(signatureValue) }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [algorithm(algorithms.digest, false)],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates,
    signerInfos: [signerInfo],
  });
  return { signedData, signatureValue };
}

/** Adds an RFC 3161 token as the unsigned attribute signature-time-stamp (B-T). */
export function addSignatureTimeStamp(signature: CadesSignature, token: Buffer): void {
  const parsed = asn1js.fromBER(toArrayBuffer(token));
  if (parsed.offset === -1) throw new Error("the time-stamp token is not DER");
  const signerInfo = signature.signedData.signerInfos[0]!;
  signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 1,
    attributes: [new pkijs.Attribute({ type: OID.signatureTimeStamp, values: [parsed.result] })],
  });
}

/** The ContentInfo of the SignedData, DER: what goes into the signature dictionary's /Contents. */
export function encodeSignature(signature: CadesSignature): Buffer {
  const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: signature.signedData.toSchema(true) });
  return Buffer.from(info.toSchema().toBER());
}

/**
 * SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 } with one ESSCertIDv2 for the
 * signer: its certHash (SHA-256, the default hashAlgorithm, so omitted as DER requires). pkijs has no
 * class for it. issuerSerial is left out: the signer is already named by the SignerInfo's sid.
 */
function signingCertificateV2(certificateDer: Buffer): asn1js.Sequence {
  const certHash = createHash("sha256").update(certificateDer).digest();
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: toArrayBuffer(certHash) })] });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

function attribute(type: string, value: asn1js.AsnType): pkijs.Attribute {
  return new pkijs.Attribute({ type, values: [value] });
}

/** DER orders a SET OF by the encodings of its elements. */
function sortedForDer(attributes: pkijs.Attribute[]): pkijs.Attribute[] {
  const encoded = attributes.map((a) => ({ a, der: Buffer.from(a.toSchema().toBER()) }));
  return encoded.sort((x, y) => Buffer.compare(x.der, y.der)).map((e) => e.a);
}

/**
 * An AlgorithmIdentifier: sha256WithRSAEncryption carries an explicit NULL (RFC 4055); the SHA-2 digests
 * (RFC 5754) and ECDSA (RFC 5758) have their parameters absent.
 */
function algorithm(algorithmId: string, withNull = true): pkijs.AlgorithmIdentifier {
  return new pkijs.AlgorithmIdentifier({
    algorithmId,
    ...(withNull && { algorithmParams: new asn1js.Null() }),
  });
}

export { OID as CMS_OIDS };
