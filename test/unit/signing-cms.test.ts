import { execFile } from "node:child_process";
import { createHash, createPrivateKey, generateKeyPairSync, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PDFDocument } from "@cantoo/pdf-lib";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addSignatureTimeStamp, CMS_OIDS, encodeSignature, signDetached } from "#shared/signing/cms.ts";
import type { SigningIdentity } from "#shared/signing/identity.ts";
import { embedSignature, prepareSignature, signedParts, topLevelEntries } from "#shared/signing/pdf-signature.ts";
import { signPdf } from "#shared/signing/sign-pdf.ts";
import { SignPdfError, TimestampError } from "#shared/signing/signing-errors.ts";
import { requestTimestamp } from "#shared/signing/timestamp.ts";
import { qpdfObjects } from "../helpers/pdf-objects.ts";
import { type Identity, type SigningFixtures, signingFixtures } from "../helpers/signing-fixtures.ts";

const run = promisify(execFile);

/**
 * The signing core's parts without a browser (shared/signing/README.md#signing): the CMS checked by
 * `openssl cms -verify`, the incremental update on hand-written PDFs of several revisions (the /Prev
 * chain, /Annots by reference, an existing form, a CropBox) read back by qpdf, the ByteRange and the
 * placeholder, and the time-stamp client's failures told apart against canned TSA answers.
 */

let fixtures: SigningFixtures;
let work: string;
beforeAll(async () => {
  fixtures = await signingFixtures();
  work = mkdtempSync(join(tmpdir(), "platen-signing-unit-"));
}, 60_000);

const identityOf = (id: Identity): SigningIdentity => ({
  privateKey: createPrivateKey(id.keyPem),
  chain: [new X509Certificate(id.certPem), new X509Certificate(fixtures.caPem)],
});

let files = 0;
const save = (bytes: Buffer): string => {
  const path = join(work, `f${++files}`);
  writeFileSync(path, bytes);
  return path;
};

/** openssl cms -verify of a detached signature over `content`, trusting the test CA only. */
const opensslVerify = (der: Buffer, content: Buffer) =>
  run("openssl", [
    ...["cms", "-verify", "-binary", "-inform", "DER", "-in", save(der), "-content", save(content)],
    ...["-CAfile", fixtures.caPath, "-purpose", "any", "-out", "/dev/null"],
  ]);

/** The CMS as OpenSSL encodes it after reading it (`openssl cms -cmsout`, DER out). */
async function opensslReencoded(der: Buffer): Promise<Buffer> {
  const out = join(work, `f${++files}.der`);
  await run("openssl", ["cms", "-cmsout", "-inform", "DER", "-in", save(der), "-outform", "DER", "-out", out]);
  return readFileSync(out);
}

/** The DER in a /Contents hex string: as long as its outer length says, the rest is zero padding. */
function derIn(hex: string): Buffer {
  const bytes = Buffer.from(hex, "hex");
  return bytes.subarray(0, asn1js.fromBER(new Uint8Array(bytes)).offset);
}

const signerInfoOf = (der: Buffer) =>
  new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(der)).content }).signerInfos[0]!;

describe("the CAdES detached SignedData", () => {
  const content = [Buffer.from("%PDF-1.7 first part "), Buffer.from("second part %%EOF")];

  it.each([
    ["RSA 2048", "rsa", CMS_OIDS.sha256, CMS_OIDS.sha256WithRsa, "sha256"],
    ["EC P-256", "ec", CMS_OIDS.sha256, CMS_OIDS.ecdsaWithSha256, "sha256"],
    ["EC P-384", "ecP384", CMS_OIDS.sha384, CMS_OIDS.ecdsaWithSha384, "sha384"],
    ["EC P-521", "ecP521", CMS_OIDS.sha512, CMS_OIDS.ecdsaWithSha512, "sha512"],
  ] as const)(
    "%s: openssl verifies it; the digest matches the key; content-type, message-digest and ESS signing-certificate-v2, no signing-time",
    async (_, key, digestOid, signatureOid, hash) => {
      const der = encodeSignature(signDetached(content, identityOf(fixtures[key])));
      await expect(opensslVerify(der, Buffer.concat(content))).resolves.toBeDefined();
      expect(await opensslReencoded(der)).toEqual(der); // DER: OpenSSL's own encoding of it, byte for byte
      const signer = signerInfoOf(der);
      expect(signer.digestAlgorithm.algorithmId).toBe(digestOid);
      expect(signer.signatureAlgorithm.algorithmId).toBe(signatureOid);
      const attributes = new Map(signer.signedAttrs!.attributes.map((a) => [a.type, a.values[0]]));
      expect([...attributes.keys()].sort()).toEqual(
        [CMS_OIDS.contentType, CMS_OIDS.messageDigest, CMS_OIDS.signingCertificateV2].sort(),
      );
      expect(attributes.has("1.2.840.113549.1.9.5")).toBe(false); // signing-time: the time is /M
      const digest = Buffer.from((attributes.get(CMS_OIDS.messageDigest) as asn1js.OctetString).getValue());
      expect(digest).toEqual(createHash(hash).update(Buffer.concat(content)).digest());
    },
  );

  it("signs the attributes' DER in DER order (a SET OF sorted by encoding), as openssl re-encodes them", () => {
    const der = encodeSignature(signDetached(content, identityOf(fixtures.rsa)));
    const encoded = signerInfoOf(der).signedAttrs!.attributes.map((a) => Buffer.from(a.toSchema().toBER()));
    expect([...encoded].sort(Buffer.compare)).toEqual(encoded);
  });

  it("carries a time-stamp token as the unsigned attribute signature-time-stamp, still verifying", async () => {
    const signature = signDetached(content, identityOf(fixtures.rsa));
    const query = join(work, "own.tsq");
    const reply = join(work, "own.tsr");
    const token = join(work, "own.tst");
    const imprint = createHash("sha256").update(signature.signatureValue).digest("hex");
    await run("openssl", ["ts", "-query", "-digest", imprint, "-sha256", "-cert", "-out", query]);
    await run("openssl", [
      ...["ts", "-reply", "-config", fixtures.tsa.configPath, "-queryfile", query],
      ...["-signer", fixtures.tsa.certPath, "-inkey", fixtures.tsa.keyPath, "-chain", fixtures.caPath, "-out", reply],
    ]);
    await run("openssl", ["ts", "-reply", "-in", reply, "-token_out", "-out", token]);
    expect(() => addSignatureTimeStamp(signature, Buffer.from("0400", "hex"))).toThrow();
    addSignatureTimeStamp(signature, readFileSync(token));
    const der = encodeSignature(signature);
    await opensslVerify(der, Buffer.concat(content));
    expect(await opensslReencoded(der)).toEqual(der);
    const stamp = signerInfoOf(der).unsignedAttrs!.attributes;
    expect(stamp.map((a) => a.type)).toEqual([CMS_OIDS.signatureTimeStamp]);
    expect(Buffer.from(stamp[0]!.values[0]!.toBER())).toEqual(readFileSync(token));
  });

  it("refuses a key it would mislabel (Ed25519) rather than write a signature no one verifies", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const identity = { ...identityOf(fixtures.rsa), privateKey };
    expect(() => signDetached(content, identity)).toThrow(SignPdfError);
  });
});

/** A classic-xref PDF from object bodies (index = object number), with a trailer tail. */
function writePdf(objects: Record<number, string>, trailer: string): Buffer {
  let out = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n";
  const offsets = new Map<number, number>();
  const size = Math.max(...Object.keys(objects).map(Number)) + 1;
  for (const [num, body] of Object.entries(objects)) {
    offsets.set(Number(num), out.length);
    out += `${num} 0 obj\n${body}\nendobj\n`;
  }
  const xrefAt = out.length;
  out += `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) out += `${String(offsets.get(n) ?? 0).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<</Size ${size} ${trailer}>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** An incremental update of `pdf` with new versions of some objects; `/Prev` the file's last xref. */
function appendRevision(pdf: Buffer, objects: Record<number, string>, trailer: string): Buffer {
  const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf.toString("latin1"))![1];
  let out = "";
  const rows: string[] = [];
  let size = 0;
  for (const [num, body] of Object.entries(objects)) {
    rows.push(`${num} 1\n${String(pdf.length + out.length).padStart(10, "0")} 00000 n \n`);
    out += `${num} 0 obj\n${body}\nendobj\n`;
    size = Math.max(size, Number(num) + 1);
  }
  const xrefAt = pdf.length + out.length;
  out += `xref\n${rows.join("")}trailer\n<</Size ${size} ${trailer} /Prev ${prev}>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([pdf, Buffer.from(out, "latin1")]);
}

const ID = "/ID [<00112233445566778899AABBCCDDEEFF> <FFEEDDCCBBAA99887766554433221100>]";

/** Two pages, the first with a CropBox and /Annots by reference, a form with a text field; then an update. */
function twoRevisions(): Buffer {
  const first = writePdf(
    {
      1: "<</Type /Catalog /Pages 2 0 R /AcroForm <</Fields [5 0 R] /DA (/Helv 0 Tf 0 g)>>>>",
      2: "<</Type /Pages /Kids [3 0 R 6 0 R] /Count 2 /MediaBox [0 0 612 792]>>",
      3: "<</Type /Page /Parent 2 0 R /Annots 4 0 R /CropBox [10 20 600 780] /Contents 7 0 R>>",
      4: "[5 0 R]",
      5: "<</Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [20 700 120 720] /P 3 0 R /F 4>>",
      6: "<</Type /Page /Parent 2 0 R /Contents 7 0 R>>",
      7: "<</Length 11>>\nstream\n0 0 m 1 1 l\nendstream",
    },
    `/Root 1 0 R ${ID}`,
  );
  // The second page in a new version, and an Info dictionary: the signer must read these, not the first.
  return appendRevision(
    first,
    { 6: "<</Type /Page /Parent 2 0 R /Contents 7 0 R /Rotate 0 /Annots [] /Revised true>>", 8: "<</Title (t)>>" },
    `/Root 1 0 R /Info 8 0 R ${ID}`,
  );
}

const fields = { signingTime: new Date("2026-11-28T12:34:56Z"), reason: "承認 approval", location: "Tokyo" };

describe("the incremental update", () => {
  it("follows /Prev to each object's newest version, keeps the old fields and annotations, /ID and /Info", async () => {
    const pdf = twoRevisions();
    const prepared = prepareSignature(
      pdf,
      { ...fields, visible: { page: 2, x: 0, y: 0, width: 100, height: 40, lines: ["Digitally signed"] } },
      8192,
    );
    const signed = embedSignature(
      prepared,
      encodeSignature(signDetached(signedParts(prepared), identityOf(fixtures.rsa))),
    );
    expect(signed.subarray(0, pdf.length).equals(pdf)).toBe(true);
    await run("qpdf", ["--check", save(signed)]);

    const objects = qpdfObjects(signed);
    expect(objects.trailer["/ID"]).toEqual(qpdfObjects(pdf).trailer["/ID"]);
    expect(objects.trailer["/Info"]).toBe("8 0 R");
    const tail = signed.toString("latin1", pdf.length);
    expect(tail).toContain(`/Prev ${/startxref\s+(\d+)/.exec(pdf.toString("latin1", pdf.length - 40))![1]}`);
    // Page 2 is the update's version (/Revised), now with the widget.
    const page = objects.get("6 0 R");
    expect(page["/Revised"]).toBe(true);
    const [widgetRef] = page["/Annots"] as string[];
    const widget = objects.get(widgetRef);
    expect(widget).toMatchObject({ "/FT": "/Sig", "/F": 132, "/P": "6 0 R", "/Subtype": "/Widget" });
    expect(widget["/Rect"]).toEqual([0, 752, 100, 792]); // top-left of the MediaBox, inherited from /Pages
    const form = objects.get("1 0 R")["/AcroForm"] as Record<string, unknown>;
    expect(form["/Fields"]).toEqual(["5 0 R", widgetRef]);
    expect(form["/SigFlags"]).toBe(3);
    expect(form["/DA"]).toBeDefined();
    const sig = objects.get(widget["/V"]);
    expect(sig).toMatchObject({ "/Type": "/Sig", "/SubFilter": "/ETSI.CAdES.detached", "/M": "u:D:20261128123456Z" });
    expect(sig["/Reason"]).toBe("u:承認 approval");
    expect(sig["/Location"]).toBe("u:Tokyo");
    // ASCII as a literal string, other text UTF-16BE with a byte-order mark.
    expect(signed.toString("latin1")).toContain("/Location (Tokyo)");
    expect(signed.toString("latin1")).toContain("/Reason <FEFF627F8A8D00200061007000700072006F00760061006C>");
  });

  it("adds the widget to /Annots by reference (a new version of the array) and measures from the CropBox", () => {
    const pdf = twoRevisions();
    const prepared = prepareSignature(
      pdf,
      { ...fields, visible: { page: 1, x: 30, y: 50, width: 200, height: 60, lines: ["x"] } },
      4096,
    );
    const objects = qpdfObjects(prepared.pdf);
    const annots = objects.get("4 0 R") as unknown as string[];
    expect(annots).toHaveLength(2);
    expect(annots[0]).toBe("5 0 R");
    expect(objects.get("3 0 R")["/Annots"]).toBe("4 0 R");
    // CropBox [10 20 600 780]: x 10 + 30, top 780 − 50 − 60.
    expect(objects.get(annots[1])["/Rect"]).toEqual([40, 670, 240, 730]);
  });

  it("keeps a form given by reference whose /Fields is itself a reference: a new version of each that changes", () => {
    const pdf = writePdf(
      {
        1: "<</Type /Catalog /Pages 2 0 R /AcroForm 4 0 R>>",
        2: "<</Type /Pages /Kids [3 0 R] /Count 1>>",
        3: "<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [6 0 R]>>",
        4: "<</Fields 5 0 R /DA (/Helv 0 Tf 0 g)>>",
        5: "[6 0 R]",
        6: "<</Type /Annot /Subtype /Widget /FT /Tx /T (a) /Rect [0 0 10 10] /P 3 0 R /F 4>>",
      },
      `/Root 1 0 R ${ID}`,
    );
    const objects = qpdfObjects(prepareSignature(pdf, fields, 4096).pdf);
    const fieldsArray = objects.get("5 0 R") as unknown as string[];
    expect(fieldsArray).toHaveLength(2);
    expect(objects.get("4 0 R")).toMatchObject({ "/Fields": "5 0 R", "/SigFlags": 3 });
    expect(objects.get("1 0 R")["/AcroForm"]).toBe("4 0 R");
    expect(objects.get("3 0 R")["/Annots"]).toEqual(["6 0 R", fieldsArray[1]]);
  });

  it("writes an invisible signature as Rect [0 0 0 0] with an empty appearance, on page 1", () => {
    const prepared = prepareSignature(twoRevisions(), fields, 4096);
    const objects = qpdfObjects(prepared.pdf);
    const annots = objects.get("4 0 R") as unknown as string[];
    const widget = objects.get(annots[1]);
    expect(widget["/Rect"]).toEqual([0, 0, 0, 0]);
    expect(objects.get((widget["/AP"] as Record<string, unknown>)["/N"])["/BBox"]).toEqual([0, 0, 0, 0]);
  });

  it("writes a ByteRange of fixed width covering everything but the /Contents hex string, the placeholder its capacity", () => {
    const pdf = twoRevisions();
    const prepared = prepareSignature(pdf, fields, 3000);
    const [a, b, c, d] = prepared.byteRange;
    const text = prepared.pdf.toString("latin1");
    expect(a).toBe(0);
    expect(c + d).toBe(prepared.pdf.length);
    expect(text[b]).toBe("<");
    expect(text[c - 1]).toBe(">");
    expect(c - b).toBe(3000 * 2 + 2);
    expect(text.slice(b + 1, c - 1)).toMatch(/^0+$/);
    const written = /\/ByteRange \[[^\]]*\]/.exec(text)![0];
    expect(written).toHaveLength("/ByteRange [0 0000000000 0000000000 0000000000]".length);
    expect(written.match(/\d+/g)!.map(Number)).toEqual([a, b, c, d]);
    // The signed parts are the file minus the hex string.
    expect(Buffer.concat(signedParts(prepared)).length).toBe(prepared.pdf.length - (c - b));
  });

  it("fills the placeholder with the DER and zero padding; a DER that does not fit is refused, nothing truncated", () => {
    const prepared = prepareSignature(twoRevisions(), fields, 64);
    expect(() => embedSignature(prepared, Buffer.alloc(65, 1))).toThrow(SignPdfError);
    const der = Buffer.from("3003020101", "hex");
    const filled = embedSignature(prepared, der);
    const hex = filled.toString("latin1", prepared.byteRange[1] + 1, prepared.byteRange[2] - 1);
    expect(hex).toBe(`3003020101${"0".repeat(128 - 10)}`);
  });

  it("sizes the placeholder from the chain: signPdf's CMS fits with room, for RSA and EC", async () => {
    for (const key of ["rsa", "ec"] as const) {
      const identity = identityOf(fixtures[key]);
      const { pdf } = await signPdf(twoRevisions(), { identity, level: "B-B", signingTime: fields.signingTime });
      const text = pdf.toString("latin1");
      const [, , b, c] = /\/ByteRange \[(\d+) (\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text)!.map(Number);
      const hex = text.slice(b! + 1, c! - 1);
      const derLength = derIn(hex).length;
      const chain = identity.chain.reduce((n, cert) => n + cert.raw.length, 0);
      expect(hex.length / 2).toBeGreaterThan(derLength);
      expect(hex.length / 2).toBeLessThan(chain + 4096);
    }
  });

  it("signs pdf-lib's output without object streams (the post-processing's fallback writes it so)", async () => {
    const doc = await PDFDocument.create();
    doc.addPage([595, 842]);
    const pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
    const { pdf: signed } = await signPdf(pdf, {
      identity: identityOf(fixtures.ec),
      level: "B-B",
      signingTime: fields.signingTime,
      visible: { page: 1, x: 20, y: 20, width: 150, height: 40 },
    });
    await run("qpdf", ["--check", save(signed)]);
    const [, a, b, c, d] = /\/ByteRange \[(\d+) (\d+)\s+(\d+)\s+(\d+)\s*\]/
      .exec(signed.toString("latin1"))!
      .map(Number);
    const der = derIn(signed.toString("latin1", b! + 1, c! - 1));
    const content = Buffer.concat([signed.subarray(a!, a! + b!), signed.subarray(c!, c! + d!)]);
    await opensslVerify(der, content);
  });

  it("refuses a file whose last cross-reference is a stream, and a page that does not exist", async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const streams = Buffer.from(await doc.save({ useObjectStreams: true }));
    expect(() => prepareSignature(streams, fields, 4096)).toThrow(/cross-reference stream/);
    expect(() =>
      prepareSignature(
        twoRevisions(),
        { ...fields, visible: { page: 3, x: 0, y: 0, width: 1, height: 1, lines: [] } },
        4096,
      ),
    ).toThrow(/no page 3/);
    expect(() => prepareSignature(Buffer.from("%PDF-1.7\nnot a pdf"), fields, 4096)).toThrow(SignPdfError);
    // startxref pointing at the end-of-line before "xref" is read; pointing into an object is refused.
    const moved = (delta: number) =>
      Buffer.from(
        twoRevisions()
          .toString("latin1")
          .replace(/startxref\n(\d+)\n%%EOF\n$/, (_, n: string) => `startxref\n${Number(n) + delta}\n%%EOF\n`),
        "latin1",
      );
    expect(prepareSignature(moved(-1), fields, 4096).pdf.length).toBeGreaterThan(moved(-1).length);
    expect(() => prepareSignature(moved(-5), fields, 4096)).toThrow(/not where the file says/);
    for (const box of [
      { x: -1, y: 0, width: 10, height: 10 },
      { x: 0, y: 0, width: 0, height: 10 },
      { x: 0, y: Number.NaN, width: 10, height: 10 },
      { x: 500, y: 0, width: 200, height: 10 }, // past the right edge
    ])
      expect(() =>
        prepareSignature(twoRevisions(), { ...fields, visible: { page: 1, ...box, lines: [] } }, 4096),
      ).toThrow(SignPdfError);
  });

  it("reads a dictionary's own keys, skipping nested dictionaries, arrays and strings", () => {
    const entries = topLevelEntries("<</A <</B 1>> /C [(x]) <<>>] /D (a \\) /E) /F 3 0 R /G /Name>>");
    expect([...entries.keys()]).toEqual(["A", "C", "D", "F", "G"]);
    expect(entries.get("F")!.value).toBe("3 0 R");
    expect(entries.get("D")!.value).toBe("(a \\) /E)");
  });
});

describe("the time-stamp client's failures", () => {
  let server: Server;
  let url: string;
  let answer: (res: import("node:http").ServerResponse) => void = (res) => res.end();
  let otherReply: Buffer;

  beforeAll(async () => {
    // A genuine openssl reply, but to another request: its imprint and nonce are not ours.
    const query = join(work, "other.tsq");
    const reply = join(work, "other.tsr");
    await run("openssl", ["ts", "-query", "-digest", "ab".repeat(32), "-sha256", "-cert", "-out", query]);
    await run("openssl", [
      ...["ts", "-reply", "-config", fixtures.tsa.configPath, "-queryfile", query],
      ...["-signer", fixtures.tsa.certPath, "-inkey", fixtures.tsa.keyPath, "-chain", fixtures.caPath, "-out", reply],
    ]);
    otherReply = readFileSync(reply);
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => answer(res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  const failure = async (respond: typeof answer, timeoutMs = 2000) => {
    answer = respond;
    const error = await requestTimestamp(Buffer.from("signature value"), { url, timeoutMs }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimestampError);
    return error as TimestampError;
  };
  const reply = (hex: string) => (res: import("node:http").ServerResponse) =>
    res.writeHead(200, { "Content-Type": "application/timestamp-reply" }).end(Buffer.from(hex, "hex"));

  it.each([
    ["HTTP 503", (res: import("node:http").ServerResponse) => res.writeHead(503).end(), true],
    ["HTTP 429", (res: import("node:http").ServerResponse) => res.writeHead(429).end(), true],
    ["HTTP 400", (res: import("node:http").ServerResponse) => res.writeHead(400).end(), false],
    ["status waiting", reply("30053003020103"), true],
    ["status rejection", reply("30053003020102"), false],
    ["bytes that are not a TimeStampResp", reply("0102030405"), false],
    ["a TimeStampResp without a readable token", reply("300a300302010030030201ff"), false],
  ] as const)("%s → transient %s", async (_, respond, transient) => {
    expect((await failure(respond)).transient).toBe(transient);
  });

  it("a granted token over another imprint and nonce is refused, not transient", async () => {
    const error = await failure((res) => res.writeHead(200).end(otherReply));
    expect(error.transient).toBe(false);
    expect(error.message).toMatch(/not over the signature value|nonce/);
  });

  it("a TSA that sends its headers and then stalls is a timeout, transient", async () => {
    const error = await failure((res) => {
      res.writeHead(200, { "Content-Type": "application/timestamp-reply" });
      res.write(Buffer.from("30", "hex"));
      setTimeout(() => res.end(), 1500).unref();
    }, 300);
    expect(error.transient).toBe(true);
    expect(error.message).toContain("300 ms");
  });

  it("a TSA that cannot be reached is transient", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await requestTimestamp(Buffer.from("x"), { url: `http://127.0.0.1:${port}/`, timeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TimestampError);
    expect((error as TimestampError).transient).toBe(true);
  });
});
