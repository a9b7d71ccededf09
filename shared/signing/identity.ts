import { createHash, createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import type { Clock } from "#shared/clock.ts";
import { MAX_PKCS12_ITERATIONS, Pkcs12PasswordError, Pkcs12UnsupportedError, readPkcs12 } from "./pkcs12.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { identityRefused } from "./signing-errors.ts";
import { signingText } from "./signing-text.ts";

/** What a workspace uploads: a PKCS#12 file (base64) and its password, or a PEM key and its PEM chain. */
export type IdentityInput =
  | { pkcs12: string; password: string }
  | { privateKeyPem: string; certificateChainPem: string; password?: undefined };

/** A decoded identity, ready to sign: never answered, logged or stored in clear (key-sealing.ts). */
export interface SigningIdentity {
  privateKey: KeyObject;
  /** The signer's certificate first, then its issuers as far as they were given. */
  chain: X509Certificate[];
}

/** What may be shown of an identity (the management API's answer). */
export interface IdentityDescription {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  /** SHA-256 of the signer certificate's DER, lower-case hex. */
  fingerprintSha256: string;
  /** `RSA-2048`, `EC-P-256`, … */
  keyAlgorithm: string;
}

const CURVES: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

/**
 * Decodes and checks an uploaded identity: the password opens the file, the key matches the first
 * certificate it belongs to, that certificate is valid at `clock.now()`, the key is at least RSA 2048
 * or EC P-256. @throws PlatenError VALIDATION_FAILED naming the field at fault
 */
export async function importIdentity(
  input: IdentityInput,
  clock: Pick<Clock, "now">,
): Promise<{ identity: SigningIdentity; description: IdentityDescription }> {
  const { keys, certificates } = "pkcs12" in input ? await openPkcs12(input) : readPem(input);
  const certs = certificates.map((der) => parseCertificate(der));
  const privateKey = keys[0];
  if (!privateKey) throw identityRefused("privateKey", signingText.noKey);
  if (certs.length === 0) throw identityRefused("certificate", signingText.noCertificate);
  const leaf = certs.find((cert) => cert.checkPrivateKey(privateKey));
  if (!leaf) {
    throw identityRefused("privateKey", signingText.keyMismatch);
  }
  const keyAlgorithm = checkStrength(privateKey);
  checkValidity(leaf, clock.now());
  const identity = { privateKey, chain: orderChain(leaf, certs) };
  return { identity, description: describeIdentity(identity.chain[0]!, keyAlgorithm) };
}

/** The shown fields of a signer certificate. */
export function describeIdentity(cert: X509Certificate, keyAlgorithm: string): IdentityDescription {
  return {
    subject: cert.subject.replaceAll("\n", ", "),
    issuer: cert.issuer.replaceAll("\n", ", "),
    serialNumber: cert.serialNumber.toLowerCase(),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    fingerprintSha256: createHash("sha256").update(cert.raw).digest("hex"),
    keyAlgorithm,
  };
}

async function openPkcs12(input: { pkcs12: string; password: string }) {
  let contents: Awaited<ReturnType<typeof readPkcs12>>;
  try {
    contents = await readPkcs12(Buffer.from(input.pkcs12, "base64"), input.password);
  } catch (error) {
    if (error instanceof Pkcs12PasswordError) {
      throw identityRefused("password", signingText.wrongPassword, error);
    }
    if (error instanceof Pkcs12UnsupportedError) {
      const text =
        error.reason === "legacy-encryption"
          ? signingText.legacyPkcs12
          : fillBoth(signingText.pkcs12Iterations, { max: MAX_PKCS12_ITERATIONS });
      throw identityRefused("pkcs12", text, error);
    }
    throw identityRefused("pkcs12", signingText.notPkcs12, error);
  }
  const keys = contents.keys.map((der) => createPrivateKey({ key: der, format: "der", type: "pkcs8" }));
  return { keys, certificates: contents.certificates };
}

function readPem(input: { privateKeyPem: string; certificateChainPem: string }) {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: input.privateKeyPem, format: "pem" });
  } catch (error) {
    throw identityRefused("privateKeyPem", signingText.notPemKey, error);
  }
  const blocks = input.certificateChainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) {
    throw identityRefused("certificateChainPem", signingText.noPemCertificate);
  }
  return { keys: [key], certificates: blocks.map((pem) => Buffer.from(pem)) };
}

function parseCertificate(bytes: Buffer): X509Certificate {
  try {
    return new X509Certificate(bytes);
  } catch (error) {
    throw identityRefused("certificate", signingText.notX509, error);
  }
}

/** The key's name (`RSA-2048`), or a refusal below RSA 2048 / EC P-256 or of another type. */
function checkStrength(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === "rsa" && (details.modulusLength ?? 0) >= 2048) return `RSA-${details.modulusLength}`;
  const curve = key.asymmetricKeyType === "ec" ? CURVES[details.namedCurve ?? ""] : undefined;
  if (curve) return `EC-${curve}`;
  throw identityRefused("privateKey", signingText.weakKey);
}

function checkValidity(cert: X509Certificate, now: Date): void {
  if (now.getTime() > new Date(cert.validTo).getTime()) {
    throw identityRefused("certificate", fillBoth(signingText.expired, { date: new Date(cert.validTo).toISOString() }));
  }
  if (now.getTime() < new Date(cert.validFrom).getTime()) {
    throw identityRefused(
      "certificate",
      fillBoth(signingText.notYetValid, { date: new Date(cert.validFrom).toISOString() }),
    );
  }
}

/** The leaf, then each issuer found among the given certificates (others are dropped). */
function orderChain(leaf: X509Certificate, certs: X509Certificate[]): X509Certificate[] {
  const chain = [leaf];
  for (let cert = leaf; chain.length <= certs.length; ) {
    if (cert.checkIssued(cert) && cert.verify(cert.publicKey)) break; // self-signed: the root
    const issuer = certs.find((c) => !chain.includes(c) && cert.checkIssued(c));
    if (!issuer) break;
    chain.push(issuer);
    cert = issuer;
  }
  return chain;
}
