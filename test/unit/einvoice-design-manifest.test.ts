import { describe, expect, it } from "vitest";
import { rawFromFiles } from "#shared/authoring/bundle-codec.ts";
import { checkBundle } from "#shared/authoring/bundle-rules.ts";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import {
  einvoiceFormatOf,
  pdfStandardOf,
  protectionAllowed,
  refuseUnprotectable,
} from "#shared/designs/pdf-standard.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";

/**
 * design.json's `einvoice` and `pdf.standard` (shared/designs/README.md#e-invoices-and-pdfa): the
 * formats, the zugferd alias, the standard Factur-X implies, and the refusals with their field, position
 * and both messages, as the design API's 422 details carry them.
 */

const manifest = (fields: Record<string, unknown> = {}) => ({ label: "Invoice", parameters: [], ...fields });
const einvoice = (format: string, data = "einvoice.liquid") => ({ einvoice: { format, data } });

/** The problems of a bundle folder whose design.json is this text (with a mapping, so only design.json speaks). */
function manifestProblems(text: string) {
  const files = new Map<string, Buffer>([
    ["design.json", Buffer.from(text)],
    ["template.liquid", Buffer.from("<p>x</p>")],
    ["einvoice.liquid", Buffer.from("{}")],
  ]);
  return checkBundle(rawFromFiles(files)).problems;
}

describe("design.json einvoice", () => {
  it("accepts each format with the mapping einvoice.liquid; a design without einvoice has none and no standard", () => {
    for (const format of ["factur-x", "xrechnung", "peppol-bis"]) {
      const parsed = designManifestSchema.parse(manifest(einvoice(format)));
      expect(parsed.einvoice).toEqual({ format, data: "einvoice.liquid" });
      expect(einvoiceFormatOf(parsed)).toBe(format);
    }
    const plain = designManifestSchema.parse(manifest());
    expect(plain.einvoice).toBeUndefined();
    expect(plain.pdf).toEqual({ tagged: false, outline: false });
    expect(pdfStandardOf(plain)).toBeUndefined();
  });

  it("reads zugferd as factur-x, with factur-x's implied PDF/A-3b", () => {
    const parsed = designManifestSchema.parse(manifest(einvoice("zugferd")));
    expect(parsed.einvoice).toEqual({ format: "factur-x", data: "einvoice.liquid" });
    expect(parsed.pdf.standard).toBe("PDF/A-3b");
    // A manifest built without the schema still answers the alias and the standard.
    const unparsed = {
      pdf: { tagged: false, outline: false },
      einvoice: { format: "zugferd", data: "einvoice.liquid" },
    };
    expect(einvoiceFormatOf(unparsed as never)).toBe("factur-x");
    expect(pdfStandardOf(unparsed as never)).toBe("PDF/A-3b");
  });

  it("factur-x implies PDF/A-3b and accepts it named; xrechnung and peppol-bis need no standard but take either", () => {
    expect(designManifestSchema.parse(manifest(einvoice("factur-x"))).pdf.standard).toBe("PDF/A-3b");
    const named = designManifestSchema.parse(manifest({ ...einvoice("factur-x"), pdf: { standard: "PDF/A-3b" } }));
    expect(named.pdf.standard).toBe("PDF/A-3b");
    for (const format of ["xrechnung", "peppol-bis"]) {
      expect(designManifestSchema.parse(manifest(einvoice(format))).pdf.standard).toBeUndefined();
      for (const standard of ["PDF/A-2b", "PDF/A-3b"]) {
        const parsed = designManifestSchema.parse(manifest({ ...einvoice(format), pdf: { standard } }));
        expect(pdfStandardOf(parsed)).toBe(standard);
      }
    }
    // Without an e-invoice, pdf.standard stands alone.
    expect(pdfStandardOf(designManifestSchema.parse(manifest({ pdf: { standard: "PDF/A-2b" } })))).toBe("PDF/A-2b");
  });

  it("refuses a factur-x design that names PDF/A-2b: design.json, pdf.standard, its line, in English and Japanese", () => {
    const text = JSON.stringify(manifest({ ...einvoice("factur-x"), pdf: { standard: "PDF/A-2b" } }), null, 2);
    const problems = manifestProblems(text);
    expect(problems).toHaveLength(1);
    const line = text.split("\n").findIndex((l) => l.includes('"standard"')) + 1;
    expect(problems[0]).toMatchObject({ file: "design.json", field: "pdf.standard", line });
    expect(problems[0]!.text.en).toContain("factur-x");
    expect(problems[0]!.text.en).toContain("PDF/A-3b");
    expect(problems[0]!.text.ja).toContain("PDF/A-3b");
    expect(problems[0]!.text.ja).toMatch(/[\u3040-\u30ff]/);
  });

  it("refuses a mapping other than einvoice.liquid, saying only einvoice.liquid is supported, in both languages", () => {
    const text = JSON.stringify(manifest(einvoice("xrechnung", "invoice.liquid")), null, 2);
    const [problem, ...rest] = manifestProblems(text);
    expect(rest).toEqual([]);
    const line = text.split("\n").findIndex((l) => l.includes('"data"')) + 1;
    expect(problem).toMatchObject({ file: "design.json", field: "einvoice.data", line });
    expect(problem!.text.en).toBe("names the mapping file, and only einvoice.liquid is supported for now");
    expect(problem!.text.ja).toContain("einvoice.liquid のみ");
  });

  it("refuses an unknown format, a missing data, an unknown key and an unknown standard, each by its field", () => {
    const fields = (m: unknown) => manifestProblems(JSON.stringify(m)).map((p) => p.field);
    expect(fields(manifest(einvoice("ubl")))).toEqual(["einvoice.format"]);
    expect(fields(manifest({ einvoice: { format: "xrechnung" } }))).toEqual(["einvoice.data"]);
    expect(fields(manifest({ einvoice: { ...einvoice("xrechnung").einvoice, profile: "x" } }))).toEqual(["einvoice"]);
    expect(fields(manifest({ ...einvoice("xrechnung"), pdf: { standard: "PDF/A-1b" } }))).toEqual(["pdf.standard"]);
    const [format] = manifestProblems(JSON.stringify(manifest(einvoice("ubl"))));
    expect(format!.text.en).toContain("xrechnung");
    expect(format!.text.ja).not.toBe(format!.text.en);
  });
});

/** The PlatenError `refuse` throws (failing the test when it throws nothing or something else). */
function refusalOf(refuse: () => void): PlatenError {
  try {
    refuse();
  } catch (err) {
    expect(err).toBeInstanceOf(PlatenError);
    return err as PlatenError;
  }
  throw new Error("nothing was refused");
}

describe("protection of a PDF/A design", () => {
  const facturX = designManifestSchema.parse(manifest(einvoice("factur-x")));
  const archival = designManifestSchema.parse(manifest({ pdf: { standard: "PDF/A-2b" } }));
  const xrechnung = designManifestSchema.parse(manifest(einvoice("xrechnung")));
  const protection = { password: "secret" };

  it("is allowed only for designs without a PDF/A standard", () => {
    expect(protectionAllowed(facturX)).toBe(false);
    expect(protectionAllowed(archival)).toBe(false);
    expect(protectionAllowed(xrechnung)).toBe(true);
    expect(protectionAllowed(designManifestSchema.parse(manifest()))).toBe(true);
  });

  it("is 400 VALIDATION_FAILED naming content.protection (single) or each contents.<i>.protection (multiple)", () => {
    const err = refusalOf(() => refuseUnprotectable(facturX, { mode: "single", contents: [{ protection }] }));
    expect([err.code, err.status]).toEqual(["VALIDATION_FAILED", 400]);
    expect(err.details).toEqual([expect.objectContaining({ field: "content.protection", code: "VALIDATION_FAILED" })]);
    expect(detailMessage(err.details[0]!, "en")).toContain("PDF/A-3b");
    expect(detailMessage(err.details[0]!, "ja")).toContain("PDF/A-3b");

    const multiple = refusalOf(() =>
      refuseUnprotectable(archival, { mode: "multiple", contents: [{}, { protection }, { protection }] }),
    );
    expect(multiple.details.map((d) => d.field)).toEqual(["contents.1.protection", "contents.2.protection"]);
  });

  it("passes a PDF/A design without protection, and any protection of a design that prints no standard", () => {
    expect(() => refuseUnprotectable(facturX, { mode: "multiple", contents: [{}, {}] })).not.toThrow();
    expect(() => refuseUnprotectable(xrechnung, { mode: "single", contents: [{ protection }] })).not.toThrow();
  });
});
