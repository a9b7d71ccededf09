import { describe, expect, it } from "vitest";
import { rawFromFiles } from "#shared/authoring/bundle-codec.ts";
import { checkBundle } from "#shared/authoring/bundle-rules.ts";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { protectionAllowed, refuseUnprotectable } from "#shared/designs/pdf-standard.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { readTsaSettings } from "#shared/signing/design-signer.ts";

/**
 * design.json's `signature` (shared/designs/README.md#signed-documents): what it accepts, the box of a
 * visible signature, the refusals with their field and both messages, no protection beside it, and the
 * deployment's time-stamp authority setting.
 */

const manifest = (fields: Record<string, unknown> = {}) => ({ label: "Certificate", parameters: [], ...fields });
const signature = (fields: Record<string, unknown> = {}) => ({
  signature: { identity: "company-seal", level: "B-B", ...fields },
});

/** The problems of a bundle folder with this design.json, as publish and the studio see them. */
function problems(design: unknown) {
  const files = new Map<string, Buffer>([
    ["design.json", Buffer.from(JSON.stringify(design))],
    ["template.liquid", Buffer.from("<p>x</p>")],
  ]);
  return checkBundle(rawFromFiles(files)).problems;
}

describe("design.json signature", () => {
  it("accepts a label, a level, the dictionary's texts and a visible box in page lengths", () => {
    const parsed = designManifestSchema.parse(
      manifest(
        signature({
          level: "B-T",
          reason: "請求書の発行",
          location: "Tokyo",
          contactInfo: "billing@example.com",
          visible: { page: 1, x: "120mm", y: "250mm", width: "70mm", height: "25mm" },
        }),
      ),
    );
    expect(parsed.signature).toEqual({
      identity: "company-seal",
      level: "B-T",
      reason: "請求書の発行",
      location: "Tokyo",
      contactInfo: "billing@example.com",
      visible: { page: 1, x: "120mm", y: "250mm", width: "70mm", height: "25mm" },
    });
    expect(designManifestSchema.parse(manifest()).signature).toBeUndefined();
  });

  it.each([
    ["no level", { signature: { identity: "seal" } }, "signature.level"],
    ["an unknown level", signature({ level: "B-LT" }), "signature.level"],
    ["a label with a space", signature({ identity: "company seal" }), "signature.identity"],
    ["a label over 64 characters", signature({ identity: "x".repeat(65) }), "signature.identity"],
    ["a reason with a line break", signature({ reason: "one\ntwo" }), "signature.reason"],
    ["an unknown field", signature({ algorithm: "sha1" }), "signature"],
    [
      "page 0",
      signature({ visible: { page: 0, x: "0mm", y: "0mm", width: "10mm", height: "10mm" } }),
      "signature.visible.page",
    ],
    [
      "a length without a unit",
      signature({ visible: { page: 1, x: "10", y: "0mm", width: "10mm", height: "10mm" } }),
      "signature.visible.x",
    ],
  ])("refuses %s, naming %s", (_name, fields, field) => {
    const found = problems(manifest(fields));
    expect(found.map((p) => p.field)).toContain(field);
    for (const p of found) expect(p.file).toBe("design.json");
  });

  it("refuses a box that does not lie on the page, in both languages", () => {
    // A4 portrait is 210 × 297 mm: 150 + 70 passes its width.
    const found = problems(
      manifest(signature({ visible: { page: 1, x: "150mm", y: "10mm", width: "70mm", height: "20mm" } })),
    );
    const problem = found.find((p) => p.field === "signature.visible");
    expect(problem?.text.en).toContain("lie on the page (210mm × 297mm)");
    expect(problem?.text.ja).toContain("210mm × 297mm");
    // The same box fits A4 landscape.
    const landscape = manifest({
      page: { orientation: "landscape" },
      ...signature({ visible: { page: 1, x: "150mm", y: "10mm", width: "70mm", height: "20mm" } }),
    });
    expect(problems(landscape)).toEqual([]);
  });

  it("refuses a visible signature on a PDF/A design (its font would not be embedded); an invisible one passes", () => {
    const box = { page: 1, x: "10mm", y: "10mm", width: "60mm", height: "20mm" };
    for (const archival of [{ pdf: { standard: "PDF/A-2b" } }, { pdf: { standard: "PDF/A-3b" } }]) {
      const found = problems(manifest({ ...archival, ...signature({ visible: box }) }));
      expect(found.map((p) => p.field)).toEqual(["signature.visible"]);
      expect(found[0]!.text.en).toContain("signed invisibly");
      expect(problems(manifest({ ...archival, ...signature() }))).toEqual([]);
    }
  });
});

describe("protection of a signed design", () => {
  const signed = designManifestSchema.parse(manifest(signature()));
  const protection = { userPassword: "pw" };

  it("is refused: 400 VALIDATION_FAILED naming content.protection, saying why in both languages", () => {
    expect(protectionAllowed(signed)).toBe(false);
    let caught: unknown;
    try {
      refuseUnprotectable(signed, { mode: "single", contents: [{ protection }] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PlatenError);
    const err = caught as PlatenError;
    expect([err.code, err.status]).toEqual(["VALIDATION_FAILED", 400]);
    expect(err.details.map((d) => d.field)).toEqual(["content.protection"]);
    expect(detailMessage(err.details[0]!, "en")).toContain("signs its documents");
    expect(detailMessage(err.details[0]!, "ja")).toContain("署名");
  });

  it("names each item of a multiple request that asks, and passes one that asks for none", () => {
    let caught: PlatenError | undefined;
    try {
      refuseUnprotectable(signed, { mode: "multiple", contents: [{}, { protection }] });
    } catch (error) {
      caught = error as PlatenError;
    }
    expect(caught?.details.map((d) => d.field)).toEqual(["contents.1.protection"]);
    expect(() => refuseUnprotectable(signed, { mode: "multiple", contents: [{}, {}] })).not.toThrow();
  });
});

describe("the time-stamp authority setting", () => {
  it("is off without PLATEN_TSA_URL, and reads the URL, the policy and the time-out", () => {
    expect(readTsaSettings({})).toBeUndefined();
    expect(readTsaSettings({ PLATEN_TSA_URL: "" })).toBeUndefined();
    expect(readTsaSettings({ PLATEN_TSA_URL: "https://tsa.example.com/tsr" })).toEqual({
      url: "https://tsa.example.com/tsr",
      timeoutMs: 10_000,
    });
    expect(
      readTsaSettings({
        PLATEN_TSA_URL: "http://127.0.0.1:9000/",
        PLATEN_TSA_POLICY: "1.2.3.4.1",
        PLATEN_TSA_TIMEOUT_MS: "2500",
      }),
    ).toEqual({ url: "http://127.0.0.1:9000/", policyOid: "1.2.3.4.1", timeoutMs: 2500 });
  });

  it.each([
    [{ PLATEN_TSA_URL: "tsa.example.com" }, "PLATEN_TSA_URL"],
    [{ PLATEN_TSA_URL: "ftp://tsa.example.com/" }, "PLATEN_TSA_URL"],
    [{ PLATEN_TSA_URL: "https://tsa.example.com/", PLATEN_TSA_POLICY: "policy-1" }, "PLATEN_TSA_POLICY"],
    [{ PLATEN_TSA_URL: "https://tsa.example.com/", PLATEN_TSA_TIMEOUT_MS: "soon" }, "PLATEN_TSA_TIMEOUT_MS"],
  ])("refuses %o naming the variable", (env, name) => {
    expect(() => readTsaSettings(env)).toThrow(name);
  });
});
