import { execFile } from "node:child_process";
import { createHash, createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { detailMessage } from "#shared/errors/error-body.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type IdentityInput, importIdentity } from "#shared/signing/identity.ts";
import { MAX_PKCS12_ITERATIONS, Pkcs12UnsupportedError, readPkcs12 } from "#shared/signing/pkcs12.ts";
import { type SigningFixtures, signingFixtures } from "../helpers/signing-fixtures.ts";

/**
 * Importing an identity (shared/signing/README.md#identities) from the PKCS#12 files real tools write:
 * legacy encryptions and files without a MAC, the key-derivation budget an uploader cannot exceed, the
 * validity window against the clock, PEM key forms, and the shown facts. The API-level refusals are in
 * signing-identity.test.ts.
 */

const run = promisify(execFile);
let fixtures: SigningFixtures;
let dir: string;
const now = { now: () => new Date() };

/** A PKCS#12 of the RSA test signer and the CA written by `openssl pkcs12 -export` with these options. */
async function exportP12(name: string, ...options: string[]): Promise<Buffer> {
  const out = join(dir, `${name}.p12`);
  await run("openssl", [
    ...[
      "pkcs12",
      "-export",
      "-inkey",
      fixtures.rsa.keyPath,
      "-in",
      fixtures.rsa.certPath,
      "-certfile",
      fixtures.caPath,
    ],
    ...["-passout", "pass:pw", ...options, "-out", out],
  ]);
  return readFileSync(out);
}

async function refusal(input: IdentityInput, clock = now): Promise<{ field: string; en: string }> {
  const error = await importIdentity(input, clock).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PlatenError);
  const detail = (error as PlatenError).details[0]!;
  expect((error as PlatenError).code).toBe("VALIDATION_FAILED");
  return { field: detail.field ?? "", en: detailMessage(detail, "en") };
}

beforeAll(async () => {
  fixtures = await signingFixtures();
  dir = mkdtempSync(join(tmpdir(), "platen-p12-"));
}, 60_000);

describe("PKCS#12 files as tools write them", () => {
  it("opens a file without a MAC, and one whose certificates are not encrypted", async () => {
    for (const options of [["-nomac"], ["-certpbe", "NONE"], ["-macalg", "sha1"]]) {
      const contents = await readPkcs12(await exportP12(options.join(""), ...options), "pw");
      expect(contents.keys).toHaveLength(1);
      expect(contents.certificates).toHaveLength(2);
    }
  });

  it("tells a wrong password from a file without a MAC that the password does not open", async () => {
    const nomac = await exportP12("nomac-wrong", "-nomac");
    expect(await refusal({ pkcs12: nomac.toString("base64"), password: "not-it" })).toMatchObject({
      field: "password",
    });
  });

  it("refuses a legacy 3DES or RC2 file naming pkcs12, not the password that opened its MAC", async () => {
    for (const options of [["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES"], ["-legacy"]]) {
      const file = await exportP12(options.join("-"), ...options);
      const { field, en } = await refusal({ pkcs12: file.toString("base64"), password: "pw" });
      expect([field, en]).toEqual(["pkcs12", expect.stringContaining("legacy encryption (3DES or RC2)")]);
      // The wrong password is still named as such: the MAC is checked first.
      expect((await refusal({ pkcs12: file.toString("base64"), password: "no" })).field).toBe("password");
    }
  });

  it("refuses a file asking for more key-derivation rounds than the budget before deriving them", async () => {
    const file = await exportP12("iter", "-iter", String(MAX_PKCS12_ITERATIONS + 1));
    const started = performance.now();
    const error = await readPkcs12(file, "pw").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Pkcs12UnsupportedError);
    expect((error as Pkcs12UnsupportedError).reason).toBe("iterations");
    // Refused from the MAC's count alone: no round was derived.
    expect(performance.now() - started).toBeLessThan(500);
    const { field, en } = await refusal({ pkcs12: file.toString("base64"), password: "pw" });
    expect([field, en]).toEqual(["pkcs12", expect.stringContaining(`more than ${MAX_PKCS12_ITERATIONS}`)]);
  });

  it("refuses a file with a key and no certificate naming certificate; with the CA only, the key matches none", async () => {
    const out = join(dir, "key-only.p12");
    await run("openssl", [
      ...["pkcs12", "-export", "-nocerts", "-inkey", fixtures.rsa.keyPath, "-passout", "pass:pw", "-out", out],
    ]);
    const keyOnly = await refusal({ pkcs12: readFileSync(out).toString("base64"), password: "pw" });
    expect(keyOnly).toEqual({ field: "certificate", en: "the file holds no certificate" });
    const caOnly = await exportP12("ca-only", "-nocerts");
    expect(await refusal({ pkcs12: caOnly.toString("base64"), password: "pw" })).toEqual({
      field: "privateKey",
      en: "the private key does not match the certificate",
    });
  });

  it("refuses base64 that decodes to no PKCS#12 naming pkcs12", async () => {
    for (const pkcs12 of ["AAAA", Buffer.from("-----BEGIN CERTIFICATE-----").toString("base64")])
      expect(await refusal({ pkcs12, password: "pw" })).toMatchObject({ field: "pkcs12" });
  });
});

describe("the certificate's validity and the shown facts", () => {
  it("refuses a certificate not valid yet at the clock's time naming certificate", async () => {
    const before = {
      now: () => new Date(Date.parse(new X509Certificate(fixtures.rsa.certPem).validFrom) - 86_400_000),
    };
    const notYet = await refusal(
      { pkcs12: fixtures.rsa.pkcs12.toString("base64"), password: fixtures.password },
      before,
    );
    expect(notYet).toEqual({ field: "certificate", en: expect.stringContaining("is not valid before") });
  });

  it("describes an identity: subject, issuer, serial, validity, SHA-256 of the DER, the key's name", async () => {
    const cases = [
      [fixtures.rsa, "RSA-2048"],
      [fixtures.ec, "EC-P-256"],
      [fixtures.ecP384, "EC-P-384"],
    ] as const;
    for (const [id, keyAlgorithm] of cases) {
      const cert = new X509Certificate(id.certPem);
      const { description, identity } = await importIdentity(
        { pkcs12: id.pkcs12.toString("base64"), password: fixtures.password },
        now,
      );
      expect(description).toEqual({
        subject: cert.subject.replaceAll("\n", ", "),
        issuer: "CN=Platen Test CA, O=Platen tests",
        serialNumber: cert.serialNumber.toLowerCase(),
        notBefore: new Date(cert.validFrom).toISOString(),
        notAfter: new Date(cert.validTo).toISOString(),
        fingerprintSha256: createHash("sha256").update(cert.raw).digest("hex"),
        keyAlgorithm,
      });
      // The signer first, then the CA.
      expect(identity.chain.map((c) => c.subject)).toEqual([cert.subject, new X509Certificate(fixtures.caPem).subject]);
    }
  });

  it("takes a PKCS#1 RSA key and a SEC1 EC key as PEM, the chain given CA first", async () => {
    for (const [id, type] of [
      [fixtures.rsa, "pkcs1"],
      [fixtures.ec, "sec1"],
    ] as const) {
      const privateKeyPem = createPrivateKey(id.keyPem).export({ format: "pem", type }).toString();
      expect(privateKeyPem).toMatch(/BEGIN (RSA|EC) PRIVATE KEY/);
      const { identity } = await importIdentity(
        { privateKeyPem, certificateChainPem: `${fixtures.caPem}${id.certPem}` },
        now,
      );
      expect(identity.chain[0]!.checkPrivateKey(identity.privateKey)).toBe(true);
      expect(identity.chain).toHaveLength(2);
    }
  });

  it("refuses an encrypted PEM key naming privateKeyPem", async () => {
    const privateKeyPem = createPrivateKey(fixtures.rsa.keyPem)
      .export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "secret" })
      .toString();
    expect(await refusal({ privateKeyPem, certificateChainPem: fixtures.rsa.chainPem.toString() })).toMatchObject({
      field: "privateKeyPem",
    });
  });
});
