import { execFile } from "node:child_process";
import { createHash, createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { CMS_OIDS } from "#shared/signing/cms.ts";
import type { SigningIdentity } from "#shared/signing/identity.ts";
import { signPdf, type SignOptions } from "#shared/signing/sign-pdf.ts";
import { SignPdfError, TimestampError } from "#shared/signing/signing-errors.ts";
import { embeddedFileNames, qpdfObjects, xmpPacket } from "../helpers/pdf-objects.ts";
import { type SigningFixtures, signingFixtures, trustingNssDir, type Identity } from "../helpers/signing-fixtures.ts";
import { startTestTsa, type TestTsa } from "../helpers/test-tsa.ts";
import { makeBundle } from "./render-fixtures.ts";

const run = promisify(execFile);

/**
 * PAdES baseline signatures (shared/signing/README.md) on real Chromium PDFs — a plain one and a PDF/A-3b
 * carrying a Factur-X XML — checked by tools that share no code with the signer: poppler's pdfsig with an
 * NSS database trusting the test CA, `openssl cms -verify` over the ByteRange, `openssl ts -verify` for
 * the time-stamp, qpdf for the structure. Keys and certificates are made by openssl for this run.
 */

let renderer: Renderer;
let fixtures: SigningFixtures;
let nssDir: string;
let tsa: TestTsa;
let work: string;
let plain: Buffer;
let facturX: Buffer;

const identityOf = (id: Identity): SigningIdentity => ({
  privateKey: createPrivateKey(id.keyPem),
  chain: [new X509Certificate(id.certPem), new X509Certificate(fixtures.caPem)],
});

// Now: the certificates were issued moments ago, and pdfsig checks them at the signing time.
const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
const options = (extra: Partial<SignOptions> = {}): SignOptions => ({
  identity: identityOf(fixtures.rsa),
  level: "B-B",
  signingTime: signedAt,
  reason: "請求書の発行",
  location: "Tokyo",
  ...extra,
});

beforeAll(async () => {
  [fixtures, nssDir, tsa] = await Promise.all([signingFixtures(), trustingNssDir(), startTestTsa()]);
  work = mkdtempSync(join(tmpdir(), "platen-pades-"));
  renderer = createRenderer({ browsers: 1, timeoutMs: 30_000 });
  const bundle = {
    ...makeBundle("<h1>修了証 Certificate</h1><p>Awarded to Hanako Yamada</p>"),
    manifest: designManifestSchema.parse({ label: "t", parameters: [], lang: "ja" }),
  };
  plain = (await renderer.renderPdf({ bundle, bundleKey: "pades-plain", params: {}, title: "Certificate" })).pdf;
  const xml = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>\n',
  );
  facturX = (
    await renderer.renderPdf({
      bundle,
      bundleKey: "pades-facturx",
      params: {},
      title: "Invoice",
      standard: "PDF/A-3b",
      attachments: [
        {
          name: "factur-x.xml",
          bytes: xml,
          mimeType: "text/xml",
          relationship: "Alternative",
          description: "Factur-X invoice",
        },
      ],
      facturX: { documentType: "INVOICE", fileName: "factur-x.xml", version: "1.0", conformanceLevel: "EN 16931" },
    })
  ).pdf;
}, 120_000);

afterAll(async () => {
  await Promise.all([renderer?.close(), tsa?.close()]);
});

let files = 0;
const save = (pdf: Buffer) => {
  const path = join(work, `f${++files}.pdf`);
  writeFileSync(path, pdf);
  return path;
};

/** pdfsig's report of signature 1: validation, certificate, type, and the rest as text. */
async function pdfsig(pdf: Buffer): Promise<string> {
  // Not -no-ocsp: poppler 22.12 then reports a stale NSS error as "Unknown issue with Certificate" for a
  // chain NSS accepts; the test certificates name no OCSP responder, so nothing is fetched either way.
  const { stdout } = await run("pdfsig", ["-nssdir", `sql:${nssDir}`, save(pdf)]).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
  );
  return stdout;
}

/** The ByteRange, the signed bytes and the CMS of the file's last signature dictionary. */
function signatureOf(pdf: Buffer) {
  const text = pdf.toString("latin1");
  const at = text.lastIndexOf("/ByteRange [");
  const range = /\/ByteRange \[(\d+) (\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(at))!.slice(1).map(Number);
  const [a, b, c, d] = range as [number, number, number, number];
  const content = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);
  const hex = text.slice(b + 1, c - 1);
  const der = Buffer.from(hex, "hex");
  // The DER ends where its outer length says; the rest of the placeholder is zero padding.
  const parsed = asn1js.fromBER(new Uint8Array(der));
  const cms = der.subarray(0, parsed.offset);
  const dictionaryAt = text.lastIndexOf("<</Type /Sig");
  return { range, content, cms, dictionary: text.slice(dictionaryAt, text.indexOf("endobj", dictionaryAt)) };
}

function signedData(cms: Buffer) {
  const info = pkijs.ContentInfo.fromBER(new Uint8Array(cms));
  return new pkijs.SignedData({ schema: info.content });
}

async function opensslCmsVerify(pdf: Buffer): Promise<void> {
  const { content, cms } = signatureOf(pdf);
  const sigPath = save(cms);
  const contentPath = save(content);
  await run("openssl", [
    ...["cms", "-verify", "-binary", "-inform", "DER", "-in", sigPath, "-content", contentPath],
    ...["-CAfile", fixtures.caPath, "-purpose", "any", "-out", "/dev/null"],
  ]);
}

describe("B-B on a plain Chromium PDF", () => {
  let signed: Buffer;
  beforeAll(async () => {
    signed = (await signPdf(plain, options())).pdf;
  });

  it("appends to the printed bytes, keeps the trailer /ID and passes qpdf --check", async () => {
    expect(signed.subarray(0, plain.length).equals(plain)).toBe(true);
    const idOf = (pdf: Buffer) => qpdfObjects(pdf).trailer["/ID"];
    expect(idOf(signed)).toEqual(idOf(plain));
    await run("qpdf", ["--check", save(signed)]);
  });

  it("is valid and trusted for pdfsig, an ETSI.CAdES.detached signature covering the whole document", async () => {
    const report = await pdfsig(signed);
    expect(report).toContain("Signature Validation: Signature is Valid.");
    expect(report).toContain("Certificate Validation: Certificate is Trusted.");
    expect(report).toContain("Signature Type: ETSI.CAdES.detached");
    expect(report).toContain("Total document signed");
    expect(report).toContain("Signer Certificate Common Name: Platen Test Signer");
  });

  it("verifies with openssl cms over the ByteRange content", async () => {
    await expect(opensslCmsVerify(signed)).resolves.toBeUndefined();
  });

  it("signs the PAdES attributes: content-type, message-digest of the ByteRange, ESS signing-certificate-v2, no signing-time", () => {
    const { content, cms, dictionary } = signatureOf(signed);
    const data = signedData(cms);
    expect(data.certificates?.length).toBe(2); // the chain
    const signer = data.signerInfos[0]!;
    expect(signer.digestAlgorithm.algorithmId).toBe(CMS_OIDS.sha256);
    const types = signer.signedAttrs!.attributes.map((a) => a.type).sort();
    expect(types).toEqual([CMS_OIDS.contentType, CMS_OIDS.messageDigest, CMS_OIDS.signingCertificateV2].sort());
    expect(types).not.toContain("1.2.840.113549.1.9.5"); // signing-time
    const digest = signer.signedAttrs!.attributes.find((a) => a.type === CMS_OIDS.messageDigest)!.values[0];
    expect(Buffer.from((digest as asn1js.OctetString).getValue())).toEqual(
      createHash("sha256").update(content).digest(),
    );
    // ESSCertIDv2's certHash is the SHA-256 of the signer's certificate.
    const ess = signer.signedAttrs!.attributes.find((a) => a.type === CMS_OIDS.signingCertificateV2)!
      .values[0] as asn1js.Sequence;
    const certHash = ((ess.valueBlock.value[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence).valueBlock
      .value[0] as asn1js.OctetString;
    expect(Buffer.from(certHash.getValue())).toEqual(
      createHash("sha256").update(new X509Certificate(fixtures.rsa.certPem).raw).digest(),
    );
    expect(dictionary).toContain("/SubFilter /ETSI.CAdES.detached");
    expect(dictionary).toContain(`/M (D:${signedAt.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z)`);
  });

  it("is invalid for pdfsig once one byte inside the ByteRange changes, before /Contents or after it", async () => {
    const [, contentsAt, afterContents] = signatureOf(signed).range as [number, number, number, number];
    // Chromium's /Producer (the printed bytes), and the /M digit of our own update (after /Contents).
    const producer = signed.indexOf("Skia/PDF");
    const time = signed.indexOf("/M (D:", afterContents) + "/M (D:".length + 3;
    expect(producer).toBeGreaterThan(0);
    expect(producer).toBeLessThan(contentsAt);
    expect(time).toBeGreaterThan(afterContents);
    for (const at of [producer, time]) {
      const tampered = Buffer.from(signed);
      tampered[at] = tampered[at]! ^ 0x01;
      const report = await pdfsig(tampered);
      expect(report).not.toContain("Signature is Valid.");
      expect(report).toMatch(/Signature Validation: (Digest Mismatch|Signature is Invalid)/);
    }
  });
});

describe("B-T", () => {
  it("carries an RFC 3161 token over the signature value that openssl ts verifies, and stays valid for pdfsig", async () => {
    const before = tsa.requests();
    const signed = (await signPdf(plain, options({ level: "B-T", timestamp: { url: tsa.url, timeoutMs: 5000 } }))).pdf;
    expect(tsa.requests()).toBe(before + 1);
    const report = await pdfsig(signed);
    expect(report).toContain("Signature Validation: Signature is Valid.");
    expect(report).toContain("Certificate Validation: Certificate is Trusted.");
    await opensslCmsVerify(signed);

    const signer = signedData(signatureOf(signed).cms).signerInfos[0]!;
    const stamp = signer.unsignedAttrs?.attributes.find((a) => a.type === CMS_OIDS.signatureTimeStamp);
    expect(stamp).toBeDefined();
    const token = Buffer.from(stamp!.values[0]!.toBER());
    const signatureValue = Buffer.from(signer.signature.getValue());
    await run("openssl", [
      ...["ts", "-verify", "-digest", createHash("sha256").update(signatureValue).digest("hex"), "-in", save(token)],
      ...["-token_in", "-CAfile", fixtures.caPath, "-untrusted", fixtures.tsa.certPath],
    ]);
  });

  it("signs again with a larger placeholder when the token does not fit, never truncating it", async () => {
    tsa.mode = "large";
    try {
      const before = tsa.requests();
      const signed = (await signPdf(plain, options({ level: "B-T", timestamp: { url: tsa.url, timeoutMs: 5000 } })))
        .pdf;
      expect(tsa.requests()).toBe(before + 2); // the first token did not fit: a second pass, a second token
      expect(signatureOf(signed).cms.length).toBeGreaterThan(20_000);
      expect(await pdfsig(signed)).toContain("Signature Validation: Signature is Valid.");
      await opensslCmsVerify(signed);
    } finally {
      tsa.mode = "ok";
    }
  });

  it("fails with a transient TimestampError when the TSA is down, and a permanent one when it refuses: never B-B", async () => {
    tsa.mode = "down";
    const down = await signPdf(plain, options({ level: "B-T", timestamp: { url: tsa.url, timeoutMs: 5000 } })).catch(
      (e: unknown) => e,
    );
    expect(down).toBeInstanceOf(TimestampError);
    expect((down as TimestampError).transient).toBe(true);
    tsa.mode = "refuse";
    const refused = await signPdf(plain, options({ level: "B-T", timestamp: { url: tsa.url, timeoutMs: 5000 } })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(TimestampError);
    expect((refused as TimestampError).transient).toBe(false);
    tsa.mode = "slow";
    tsa.slowMs = 1500;
    const slow = await signPdf(plain, options({ level: "B-T", timestamp: { url: tsa.url, timeoutMs: 300 } })).catch(
      (e: unknown) => e,
    );
    expect((slow as TimestampError).transient).toBe(true);
    expect((slow as Error).message).toContain("within 300 ms");
    tsa.mode = "ok";
  });
});

describe("PDF/A-3b with Factur-X", () => {
  it("keeps the archive: the XML still embedded, /ID kept, qpdf clean, the signature valid and trusted", async () => {
    const signed = (await signPdf(facturX, options())).pdf;
    expect(embeddedFileNames(signed)).toEqual(["factur-x.xml"]); // pdfdetach -list
    // The XMP still declares PDF/A-3b: poppler reads the catalog's newest version, /Metadata kept.
    const xmp = xmpPacket(signed);
    expect(xmp).toMatch(/pdfaid:part(>|=")3/);
    expect(xmp).toMatch(/pdfaid:conformance(>|=")B/);
    const objects = qpdfObjects(signed);
    expect(objects.trailer["/ID"]).toEqual(qpdfObjects(facturX).trailer["/ID"]);
    const catalog = objects.get(objects.trailer["/Root"]);
    expect(catalog["/OutputIntents"]).toBeDefined();
    // PDF/A: the widget prints (Print flag), is not hidden, and has an appearance.
    const form = catalog["/AcroForm"] as Record<string, unknown>;
    const widget = objects.get((form["/Fields"] as string[])[0]!);
    expect(widget["/F"]).toBe(132);
    expect(widget["/AP"]).toBeDefined();
    expect(form["/NeedAppearances"]).toBeUndefined();
    await run("qpdf", ["--check", save(signed)]);
    const report = await pdfsig(signed);
    expect(report).toContain("Signature Validation: Signature is Valid.");
    expect(report).toContain("Certificate Validation: Certificate is Trusted.");
  });
});

describe("identities and boxes", () => {
  it("signs with EC P-256 (SHA-256), P-384 (SHA-384) and P-521 (SHA-512) identities", async () => {
    for (const [key, hash] of [
      ["ec", "SHA-256"],
      ["ecP384", "SHA-384"],
      ["ecP521", "SHA-512"],
    ] as const) {
      const signed = (await signPdf(plain, options({ identity: identityOf(fixtures[key]) }))).pdf;
      const report = await pdfsig(signed);
      expect(report).toContain("Signature Validation: Signature is Valid.");
      expect(report).toContain("Certificate Validation: Certificate is Trusted.");
      expect(report).toContain(`Signing Hash Algorithm: ${hash}`);
      await opensslCmsVerify(signed);
    }
  });

  it("signs an already signed file again: both signatures valid, the first no longer covering the whole file", async () => {
    const once = (await signPdf(plain, options())).pdf;
    const twice = (await signPdf(once, options({ identity: identityOf(fixtures.ec) }))).pdf;
    expect(twice.subarray(0, once.length).equals(once)).toBe(true);
    const report = await pdfsig(twice);
    const [first, second] = report.split(/Signature #2:/);
    expect(first).toContain("Signature Validation: Signature is Valid.");
    expect(first).toContain("Not total document signed");
    expect(second).toContain("Signature Validation: Signature is Valid.");
    expect(second).toContain("Total document signed");
    const objects = qpdfObjects(twice);
    const form = objects.get(objects.trailer["/Root"])["/AcroForm"] as Record<string, unknown>;
    expect(form["/Fields"]).toHaveLength(2);
    await run("qpdf", ["--check", save(twice)]);
  });

  it("draws a visible signature where asked, measured from the page's top-left", async () => {
    const signed = (await signPdf(plain, options({ visible: { page: 1, x: 340, y: 700, width: 200, height: 60 } })))
      .pdf;
    const objects = qpdfObjects(signed);
    const form = objects.get(objects.trailer["/Root"])["/AcroForm"] as Record<string, unknown>;
    const widget = objects.get((form["/Fields"] as string[])[0]!);
    const page = objects.get(widget["/P"]);
    expect(page["/Annots"]).toContain((form["/Fields"] as string[])[0]);
    // Chromium's A4 MediaBox starts at 0 0: the box's top is 700 pt below the page's top edge.
    const [, , , top] = page["/MediaBox"] as number[];
    const [x1, y1, x2, y2] = widget["/Rect"] as number[];
    expect([x1, x2]).toEqual([340, 540]);
    expect(y2).toBeCloseTo(top! - 700, 1);
    expect(y1).toBeCloseTo(top! - 760, 1);
    expect(await pdfsig(signed)).toContain("Signature Validation: Signature is Valid.");
    // The appearance draws the text in Helvetica: "Digitally signed", the signer's name, the time in UTC.
    const update = signed.toString("latin1", plain.length);
    expect(update).toContain("/BaseFont /Helvetica");
    expect(update).toContain("(Digitally signed) Tj");
    expect(update).toContain("(by Platen Test Signer) Tj");
    expect(update).toContain(`(${signedAt.toISOString().slice(0, 19).replace("T", " ")} UTC) Tj`);
  });

  it("leaves a common name that Latin-1 cannot write out of the visible box", async () => {
    const signed = (
      await signPdf(
        plain,
        options({
          identity: identityOf(fixtures.japanese),
          visible: { page: 1, x: 40, y: 40, width: 200, height: 60 },
        }),
      )
    ).pdf;
    const update = signed.toString("latin1", plain.length);
    expect(update).toContain("(Digitally signed) Tj");
    expect(update).not.toContain("(by ");
    const report = await pdfsig(signed);
    expect(report).toContain("Signature Validation: Signature is Valid.");
    expect(report).toContain("Signer Certificate Common Name: 山田 花子");
  });

  it("refuses a page that does not exist", async () => {
    const error = await signPdf(plain, options({ visible: { page: 3, x: 0, y: 0, width: 10, height: 10 } })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SignPdfError);
    expect((error as Error).message).toContain("no page 3");
  });
});
