import { webcrypto } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

const KEY_BAG = "1.2.840.113549.1.12.10.1.1";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const CERT_BAG = "1.2.840.113549.1.12.10.1.3";
const PBES2 = "1.2.840.113549.1.5.13";
/** PKCS#12's own password-based encryptions (3DES, RC2, RC4): what macOS, Windows and `openssl -legacy` export. */
const PKCS12_PBE = "1.2.840.113549.1.12.1.";

/**
 * The most key-derivation rounds one file may ask for, MAC and every PBKDF2 together (1–3 s of CPU here):
 * the count is the uploader's to choose, and common exporters write a few thousand per step.
 */
export const MAX_PKCS12_ITERATIONS = 1_000_000;

/** pkijs on Node's WebCrypto, passed to each call instead of set globally. */
export const cryptoEngine = new pkijs.CryptoEngine({ name: "node", crypto: webcrypto as unknown as Crypto });

/** The PKCS#8 keys and DER certificates of a PKCS#12 file. */
export interface Pkcs12Contents {
  keys: Buffer[];
  certificates: Buffer[];
}

/** Thrown when the password does not open the file (its MAC does not check, or its bags do not decrypt). */
export class Pkcs12PasswordError extends Error {
  constructor(cause: unknown) {
    super("the PKCS#12 password is wrong", { cause });
    this.name = "Pkcs12PasswordError";
  }
}

/** Thrown for a file no password opens here: a legacy encryption, or more key-derivation rounds than allowed. */
export class Pkcs12UnsupportedError extends Error {
  readonly reason: "legacy-encryption" | "iterations";
  constructor(reason: Pkcs12UnsupportedError["reason"], message: string) {
    super(message);
    this.name = "Pkcs12UnsupportedError";
    this.reason = reason;
  }
}

/**
 * Reads a password-protected PKCS#12 file with pkijs: the MAC (integrity) when the file has one, then each
 * safe (PBES2, as OpenSSL 3 writes by default, or plain), then its key and certificate bags. Each step's
 * encryption and round count are checked before any key is derived.
 * @throws Pkcs12PasswordError, Pkcs12UnsupportedError, or an Error for a file that is not PKCS#12
 */
export async function readPkcs12(der: Uint8Array, password: string): Promise<Pkcs12Contents> {
  const pfx = pkijs.PFX.fromBER(toArrayBuffer(der));
  const secret = toArrayBuffer(Buffer.from(password, "utf8"));
  const spend = iterationBudget();
  // Without a MAC a wrong password shows when a bag does not decrypt.
  const checkIntegrity = pfx.macData !== undefined;
  if (pfx.macData) spend(pfx.macData.iterations ?? 1);
  try {
    await pfx.parseInternalValues({ password: secret, checkIntegrity }, cryptoEngine);
  } catch (error) {
    if (!checkIntegrity) throw error;
    throw new Pkcs12PasswordError(error);
  }
  const safe = pfx.parsedValue?.authenticatedSafe;
  if (!safe) throw new Error("the PKCS#12 file holds no authenticated safe");
  for (const info of safe.safeContents) {
    if (info.contentType === pkijs.ContentInfo.ENCRYPTED_DATA)
      // A copy: pkijs's schema check marks the node it reads, and the safe reads it again below.
      checkEncryption(
        new pkijs.EncryptedData({ schema: asn1js.fromBER(info.content.toBER()).result }).encryptedContentInfo
          .contentEncryptionAlgorithm,
        spend,
      );
  }
  try {
    await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password: secret })) }, cryptoEngine);
  } catch (error) {
    throw new Pkcs12PasswordError(error);
  }
  const contents: Pkcs12Contents = { keys: [], certificates: [] };
  for (const safeContents of safe.parsedValue?.safeContents ?? []) {
    for (const bag of safeContents.value.safeBags) await readBag(bag, secret, spend, contents);
  }
  return contents;
}

async function readBag(bag: pkijs.SafeBag, secret: ArrayBuffer, spend: Spend, contents: Pkcs12Contents) {
  if (bag.bagId === KEY_BAG) {
    contents.keys.push(Buffer.from((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER()));
  } else if (bag.bagId === SHROUDED_KEY_BAG) {
    const shrouded = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
    checkEncryption(shrouded.encryptionAlgorithm, spend);
    // pkijs 4 marks this protected although it is the documented way to open the bag.
    const open = shrouded as unknown as {
      parseInternalValues(p: { password: ArrayBuffer }, c: pkijs.ICryptoEngine): Promise<void>;
    };
    try {
      await open.parseInternalValues({ password: secret }, cryptoEngine);
    } catch (error) {
      throw new Pkcs12PasswordError(error);
    }
    const key = shrouded.parsedValue;
    if (key) contents.keys.push(Buffer.from(key.toSchema().toBER()));
  } else if (bag.bagId === CERT_BAG) {
    const value = (bag.bagValue as pkijs.CertBag).certValue;
    if (value instanceof pkijs.Certificate) contents.certificates.push(Buffer.from(value.toSchema().toBER()));
    else if (value instanceof asn1js.OctetString) contents.certificates.push(Buffer.from(value.getValue()));
  }
}

type Spend = (iterations: number) => void;

/** Counts the rounds a file asks for; past MAX_PKCS12_ITERATIONS the file is refused before deriving more. */
function iterationBudget(): Spend {
  let spent = 0;
  return (iterations) => {
    spent += iterations;
    if (spent > MAX_PKCS12_ITERATIONS)
      throw new Pkcs12UnsupportedError(
        "iterations",
        `the file asks for more than ${MAX_PKCS12_ITERATIONS} key-derivation iterations`,
      );
  };
}

/** A PBES2 step's PBKDF2 rounds are spent; PKCS#12's legacy encryptions are refused by name. */
function checkEncryption(algorithm: pkijs.AlgorithmIdentifier, spend: Spend): void {
  if (algorithm.algorithmId.startsWith(PKCS12_PBE))
    throw new Pkcs12UnsupportedError(
      "legacy-encryption",
      `the file is encrypted with a legacy PKCS#12 algorithm (${algorithm.algorithmId})`,
    );
  if (algorithm.algorithmId !== PBES2) return; // pkijs refuses it when decrypting
  const pbes2 = new pkijs.PBES2Params({ schema: algorithm.algorithmParams });
  spend(new pkijs.PBKDF2Params({ schema: pbes2.keyDerivationFunc.algorithmParams }).iterationCount);
}

/** The exact bytes of a view as an ArrayBuffer, which pkijs and asn1js take. */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
