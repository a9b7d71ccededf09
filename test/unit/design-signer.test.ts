import { createPrivateKey, X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { PlatenError } from "#shared/errors/platen-error.ts";
import {
  type DesignSignature,
  designSigner,
  type LoadedIdentity,
  type SignerDeps,
} from "#shared/signing/design-signer.ts";
import { type SigningFixtures, signingFixtures } from "../helpers/signing-fixtures.ts";

/**
 * The signing step of generation (shared/signing/README.md#signing) against in-memory ports: what fails a
 * file with SIGNING_FAILED before any PDF is touched, the time-stamp retried three times and never
 * dropped, and one audit entry per signer however many documents it signs.
 */
let fixtures: SigningFixtures;
let loaded: LoadedIdentity;
beforeAll(async () => {
  fixtures = await signingFixtures();
  const cert = new X509Certificate(fixtures.rsa.certPem);
  loaded = {
    id: "I1",
    identity: { privateKey: createPrivateKey(fixtures.rsa.keyPem), chain: [cert, new X509Certificate(fixtures.caPem)] },
    description: {
      subject: "CN=Platen Test Signer, O=Example K.K.",
      issuer: "CN=Platen Test CA, O=Platen tests",
      serialNumber: cert.serialNumber,
      notBefore: new Date(cert.validFrom).toISOString(),
      notAfter: new Date(cert.validTo).toISOString(),
      fingerprintSha256: "00",
      keyAlgorithm: "RSA-2048",
    },
  };
}, 60_000);

/** A one-page PDF as small as a PDF gets, in classic cross-reference form (what the signer extends). */
function tinyPdf(): Buffer {
  const objects = [
    "<</Type /Catalog /Pages 2 0 R>>",
    "<</Type /Pages /Kids [3 0 R] /Count 1>>",
    "<</Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]>>",
  ];
  let body = "%PDF-1.7\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 4\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  body += `trailer\n<</Size 4 /Root 1 0 R /ID [<00112233445566778899AABBCCDDEEFF><00112233445566778899AABBCCDDEEFF>]>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

function deps(found: LoadedIdentity | undefined, tsa?: SignerDeps["tsa"]) {
  const uses: unknown[] = [];
  const all: SignerDeps = {
    loadIdentity: async () => found,
    recordUse: async (use) => {
      uses.push(use);
    },
    tsa,
    retryDelaysMs: [0, 0],
  };
  return { all, uses };
}

const bb: DesignSignature = { identity: "seal", level: "B-B" };
const failure = async (work: Promise<unknown>) => {
  const error = await work.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PlatenError);
  return error as PlatenError;
};

describe("a design's signer", () => {
  it("signs every document, and records the identity's use once with the document's id", async () => {
    const d = deps(loaded);
    const signer = await designSigner("W1", bb, new Date(), d.all, "R1");
    expect(signer.signature).toMatchObject({ subject: loaded.description.subject, level: "B-B" });
    const one = await signer.sign(tinyPdf());
    const two = await signer.sign(tinyPdf());
    for (const pdf of [one, two]) expect(pdf.toString("latin1")).toContain("/SubFilter /ETSI.CAdES.detached");
    expect(d.uses).toEqual([{ workspaceId: "W1", identityId: "I1", label: "seal", document: "R1" }]);
  });

  it.each([
    ["an identity that is gone", () => deps(undefined).all, new Date(), "no signing identity of this label"],
    ["a certificate past its validity", () => deps(loaded).all, new Date("2099-01-01T00:00:00Z"), "expired on"],
    ["a certificate not valid yet", () => deps(loaded).all, new Date("2000-01-01T00:00:00Z"), "not valid before"],
  ])("fails with SIGNING_FAILED naming the label for %s", async (_name, d, at, reason) => {
    const error = await failure(designSigner("W1", bb, at, d()));
    expect([error.code, error.status]).toEqual(["SIGNING_FAILED", 422]);
    expect(error.vars).toMatchObject({ label: "seal" });
    expect(String(error.vars?.reason)).toContain(reason);
  });

  it("refuses B-T without a time-stamp authority, and never signs B-B instead", async () => {
    const error = await failure(designSigner("W1", { ...bb, level: "B-T" }, new Date(), deps(loaded).all));
    expect(String(error.vars?.reason)).toContain("PLATEN_TSA_URL");
  });

  it("asks a TSA that cannot be reached three times, then fails the document unrecorded", async () => {
    const d = deps(loaded, { url: "http://127.0.0.1:9/tsa", timeoutMs: 500 });
    const signer = await designSigner("W1", { ...bb, level: "B-T" }, new Date(), d.all, "R2/F1");
    const error = await failure(signer.sign(tinyPdf()));
    expect(error.code).toBe("SIGNING_FAILED");
    expect(String(error.vars?.reason)).toContain("(3 attempts)");
    expect(d.uses).toEqual([]);
  });

  it("fails a visible signature on a page the document does not have", async () => {
    const visible = { ...bb, visible: { page: 2, x: "10mm", y: "10mm", width: "50mm", height: "20mm" } };
    const signer = await designSigner("W1", visible, new Date(), deps(loaded).all);
    const error = await failure(signer.sign(tinyPdf()));
    expect(String(error.vars?.reason)).toContain("no page 2");
  });
});
