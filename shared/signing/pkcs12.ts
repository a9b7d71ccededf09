import { webcrypto } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

const KEY_BAG = "1.2.840.113549.1.12.10.1.1";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const CERT_BAG = "1.2.840.113549.1.12.10.1.3";

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

/**
 * Reads a password-protected PKCS#12 file with pkijs: the MAC (integrity), then each safe (password-
 * encrypted with PBES2, as OpenSSL 3 writes by default, or plain), then its key and certificate bags.
 * @throws Pkcs12PasswordError, or an Error for a file that is not PKCS#12
 */
export async function readPkcs12(der: Uint8Array, password: string): Promise<Pkcs12Contents> {
  const pfx = pkijs.PFX.fromBER(toArrayBuffer(der));
  const secret = toArrayBuffer(Buffer.from(password, "utf8"));
  try {
    await pfx.parseInternalValues({ password: secret, checkIntegrity: true }, cryptoEngine);
  } catch (error) {
    throw new Pkcs12PasswordError(error);
  }
  const safe = pfx.parsedValue?.authenticatedSafe;
  if (!safe) throw new Error("the PKCS#12 file holds no authenticated safe");
  try {
    await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password: secret })) }, cryptoEngine);
  } catch (error) {
    throw new Pkcs12PasswordError(error);
  }
  const contents: Pkcs12Contents = { keys: [], certificates: [] };
  for (const safeContents of safe.parsedValue?.safeContents ?? []) {
    for (const bag of safeContents.value.safeBags) await readBag(bag, secret, contents);
  }
  return contents;
}

async function readBag(bag: pkijs.SafeBag, secret: ArrayBuffer, contents: Pkcs12Contents): Promise<void> {
  if (bag.bagId === KEY_BAG) {
    contents.keys.push(Buffer.from((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER()));
  } else if (bag.bagId === SHROUDED_KEY_BAG) {
    const shrouded = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
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

/** The exact bytes of a view as an ArrayBuffer, which pkijs and asn1js take. */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
