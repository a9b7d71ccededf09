import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Signing identities made for the tests, with the `openssl` CLI, in a temporary folder: nothing here is
 * a real key, and nothing is committed. A test CA signs each certificate; the TSA's certificate is for
 * time-stamping only. Made once per test process (a few hundred milliseconds) and removed at its exit.
 */
export interface SigningFixtures {
  dir: string;
  /** The test CA's certificate (PEM): what a verifier trusts. */
  caPem: Buffer;
  caPath: string;
  /** RSA 2048 signer: PEM key and certificate, and a PKCS#12 of both with the CA (password below). */
  rsa: Identity;
  /** EC P-256 signer. */
  ec: Identity;
  /** EC P-384 signer (signs with SHA-384). */
  ecP384: Identity;
  /** EC P-521 signer (signs with SHA-512). */
  ecP521: Identity;
  /** EC P-256 signer whose common name is Japanese (山田 花子): not Latin-1, so a visible box leaves it out. */
  japanese: Identity;
  /** An RSA 2048 signer whose certificate expired in 2021. */
  expired: Identity;
  /** An RSA 1024 signer (too weak to accept). */
  weak: Identity;
  /** The TSA's key, certificate and `openssl ts -reply` configuration. */
  tsa: { keyPath: string; certPath: string; certPem: Buffer; configPath: string };
  /** The password of every PKCS#12 file here. */
  password: string;
}

export interface Identity {
  keyPem: Buffer;
  certPem: Buffer;
  /** Certificate then the CA's, PEM. */
  chainPem: Buffer;
  pkcs12: Buffer;
  keyPath: string;
  certPath: string;
}

const PASSWORD = "test-パスワード";

let made: Promise<SigningFixtures> | undefined;

/** The process's fixtures (made on first call). */
export function signingFixtures(): Promise<SigningFixtures> {
  made ??= makeFixtures();
  return made;
}

async function makeFixtures(): Promise<SigningFixtures> {
  const dir = mkdtempSync(join(tmpdir(), "platen-signing-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => run("openssl", args, { cwd: dir });

  writeFileSync(
    path("ext.cnf"),
    [
      "[ca_ext]",
      "basicConstraints = critical, CA:TRUE",
      "keyUsage = critical, keyCertSign, cRLSign",
      "subjectKeyIdentifier = hash",
      "[signer_ext]",
      "basicConstraints = CA:FALSE",
      "keyUsage = critical, digitalSignature, nonRepudiation",
      "subjectKeyIdentifier = hash",
      "authorityKeyIdentifier = keyid",
      "[tsa_ext]",
      "basicConstraints = CA:FALSE",
      "keyUsage = critical, digitalSignature, nonRepudiation",
      "extendedKeyUsage = critical, timeStamping",
      "subjectKeyIdentifier = hash",
      "authorityKeyIdentifier = keyid",
      "",
    ].join("\n"),
  );
  await openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "ca.key");
  await openssl(
    ...[
      "req",
      "-x509",
      "-new",
      "-key",
      "ca.key",
      "-sha256",
      "-days",
      "3650",
      "-subj",
      "/CN=Platen Test CA/O=Platen tests",
    ],
    ...["-extensions", "ca_ext", "-config", "ext.cnf", "-out", "ca.pem"],
  );
  // openssl ca backdates the expired certificate (x509 -req cannot in OpenSSL 3.0).
  mkdirSync(path("issued"));
  writeFileSync(path("index.txt"), "");
  writeFileSync(path("serial"), "1000\n");
  writeFileSync(
    path("ca.cnf"),
    [
      "[ca]",
      "default_ca = test_ca",
      "[test_ca]",
      `database = ${path("index.txt")}`,
      `new_certs_dir = ${path("issued")}`,
      `serial = ${path("serial")}`,
      "default_md = sha256",
      "policy = any",
      "unique_subject = no",
      "[any]",
      "commonName = supplied",
      "organizationName = optional",
      "",
    ].join("\n"),
  );

  const issue = async (
    name: string,
    keyArgs: string[],
    subject: string,
    ext: string,
    dates?: { start: string; end: string },
  ) => {
    await openssl("genpkey", ...keyArgs, "-out", `${name}.key`);
    await openssl("req", "-new", "-utf8", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`);
    if (dates) {
      await openssl(
        ...["ca", "-batch", "-notext", "-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.pem"],
        ...["-extfile", "ext.cnf", "-extensions", ext, "-startdate", dates.start, "-enddate", dates.end],
        ...["-in", `${name}.csr`, "-out", `${name}.pem`],
      );
    } else {
      await openssl(
        ...["x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-sha256"],
        // A serial of its own (no shared serial file): the certificates are issued side by side.
        ...["-set_serial", `0x${randomBytes(8).toString("hex")}`],
        ...["-days", "730", "-extfile", "ext.cnf", "-extensions", ext, "-out", `${name}.pem`],
      );
    }
  };
  const rsa2048 = ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"];
  // Side by side: key generation is most of the time, and the issuers share nothing but the CA.
  await Promise.all([
    issue("rsa", rsa2048, "/CN=Platen Test Signer/O=Example K.K.", "signer_ext"),
    issue("ec", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], "/CN=Platen EC Signer", "signer_ext"),
    issue(
      "japanese",
      ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
      "/CN=山田 花子/O=株式会社テスト",
      "signer_ext",
    ),
    issue(
      "ec521",
      ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"],
      "/CN=Platen EC P-521 Signer",
      "signer_ext",
    ),
    issue(
      "ec384",
      ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
      "/CN=Platen EC P-384 Signer",
      "signer_ext",
    ),
    issue("expired", rsa2048, "/CN=Platen Expired Signer", "signer_ext", {
      start: "20200101000000Z",
      end: "20210101000000Z",
    }),
    issue("weak", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"], "/CN=Platen Weak Signer", "signer_ext"),
    issue("tsa", rsa2048, "/CN=Platen Test TSA", "tsa_ext"),
  ]);

  writeFileSync(path("tsaserial"), "01\n");
  writeFileSync(
    path("tsa.cnf"),
    [
      "[tsa]",
      "default_tsa = tsa_config",
      "[tsa_config]",
      `serial = ${path("tsaserial")}`,
      "crypto_device = builtin",
      `signer_cert = ${path("tsa.pem")}`,
      `certs = ${path("ca.pem")}`,
      `signer_key = ${path("tsa.key")}`,
      "signer_digest = sha256",
      "default_policy = 1.3.6.1.4.1.99999.1.1",
      "other_policies = 1.3.6.1.4.1.99999.1.2",
      "digests = sha256, sha384, sha512",
      "accuracy = secs:1",
      "ordering = no",
      "tsa_name = no",
      "ess_cert_id_chain = no",
      "ess_cert_id_alg = sha256",
      "",
    ].join("\n"),
  );

  const identity = async (name: string): Promise<Identity> => {
    await openssl(
      ...["pkcs12", "-export", "-inkey", `${name}.key`, "-in", `${name}.pem`, "-certfile", "ca.pem"],
      ...["-passout", `pass:${PASSWORD}`, "-out", `${name}.p12`],
    );
    const certPem = readFileSync(path(`${name}.pem`));
    return {
      keyPem: readFileSync(path(`${name}.key`)),
      certPem,
      chainPem: Buffer.concat([certPem, readFileSync(path("ca.pem"))]),
      pkcs12: readFileSync(path(`${name}.p12`)),
      keyPath: path(`${name}.key`),
      certPath: path(`${name}.pem`),
    };
  };
  const [rsa, ec, ecP384, ecP521, japanese, expired, weak] = await Promise.all(
    ["rsa", "ec", "ec384", "ec521", "japanese", "expired", "weak"].map(identity),
  );
  return {
    dir,
    caPem: readFileSync(path("ca.pem")),
    caPath: path("ca.pem"),
    rsa,
    ec,
    ecP384,
    ecP521,
    japanese,
    expired,
    weak,
    tsa: {
      keyPath: path("tsa.key"),
      certPath: path("tsa.pem"),
      certPem: readFileSync(path("tsa.pem")),
      configPath: path("tsa.cnf"),
    },
    password: PASSWORD,
  };
}

/**
 * An NSS database that trusts the test CA, for `pdfsig -nssdir <dir>`: made once per process.
 */
let nss: Promise<string> | undefined;
export function trustingNssDir(): Promise<string> {
  nss ??= (async () => {
    const fixtures = await signingFixtures();
    const dir = join(fixtures.dir, "nss");
    mkdirSync(dir);
    await run("certutil", ["-N", "-d", `sql:${dir}`, "--empty-password"]);
    await run("certutil", ["-A", "-d", `sql:${dir}`, "-n", "platen-test-ca", "-t", "CT,C,C", "-i", fixtures.caPath]);
    return dir;
  })();
  return nss;
}
