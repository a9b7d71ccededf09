import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, PDFName, StandardFonts } from "@cantoo/pdf-lib";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { type PdfAttachment, PdfArchiveError } from "#shared/render/pdf-a-options.ts";
import { postprocessPdf } from "#shared/render/pdf-postprocess.ts";
import { createRenderer, type RenderRequest, type Renderer } from "#shared/render/renderer.ts";
import { srgbIccProfile } from "#shared/render/srgb-icc.ts";
import { embeddedFile, embeddedFileNames, qpdfObjects, rasterWarnings, xmpPacket } from "../helpers/pdf-objects.ts";
import { pdfInfo, pdfText } from "../helpers/pdf-tools.ts";
import { makeBundle } from "./render-fixtures.ts";

/**
 * PDF/A-2b / PDF/A-3b and an embedded Factur-X XML on real Chromium PDFs, read back with tools that
 * share no code with the writer: qpdf (objects), poppler (pdfinfo, pdfdetach, pdftotext, pdftoppm's
 * colour management) and fast-xml-parser (the XMP packet). No veraPDF here: what these cannot see is
 * listed in shared/render/README.md#pdfa-and-embedded-files.
 */
let renderer: Renderer;
beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 30_000 });
});
afterAll(() => renderer.close());

const template = `<h1>請求書 INV-7</h1><p>合計 12,000円 <a href="https://example.com/pay?id=7&amp;k=1">支払い</a> <a href="#detail">明細へ</a></p>
<h2 id="detail">明細</h2><table><tr><th>品名</th><th>金額</th></tr><tr><td>保守</td><td>12,000</td></tr></table>`;
const bundle = {
  ...makeBundle(template),
  manifest: designManifestSchema.parse({
    label: "t",
    parameters: [],
    lang: "ja",
    pdf: { tagged: true, outline: true },
  }),
};
const xml = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"><rsm:ExchangedDocument><ram:ID xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">INV-7 請求</ram:ID></rsm:ExchangedDocument></rsm:CrossIndustryInvoice>\n',
);
const facturXFile: PdfAttachment = {
  name: "factur-x.xml",
  bytes: xml,
  mimeType: "text/xml",
  relationship: "Alternative",
  description: "Factur-X invoice",
};
const facturX = {
  documentType: "INVOICE",
  fileName: "factur-x.xml",
  version: "1.0",
  conformanceLevel: "EN 16931",
} as const;
const title = `請求書 <INV-7> & "見積" 'A'`;

const render = (extra: Partial<RenderRequest>) =>
  renderer.renderPdf({
    bundle,
    bundleKey: `pdf-a-${Math.random()}`,
    params: {},
    title,
    metadata: { author: "山田 & 子", subject: "御請求 <2026>", keywords: ["請求", "INV-7"] },
    passthrough: { invoice: "INV-7" },
    ...extra,
  });

/** The XMP properties of every rdf:Description, by qualified name, parsed by fast-xml-parser. */
function xmpProperties(packet: string): Record<string, unknown> {
  const parsed = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(packet);
  const descriptions = [parsed["x:xmpmeta"]["rdf:RDF"]["rdf:Description"]].flat() as Record<string, unknown>[];
  return Object.assign({}, ...descriptions);
}
const altText = (value: unknown) =>
  (value as { "rdf:Alt": { "rdf:li": { "#text": string } } })["rdf:Alt"]["rdf:li"]["#text"];

describe("PDF/A-3b with an embedded Factur-X XML (real Chromium PDFs)", () => {
  let pdf: Buffer;
  beforeAll(async () => {
    ({ pdf } = await render({ standard: "PDF/A-3b", attachments: [facturXFile], facturX }));
  });

  it("writes an sRGB OutputIntent, the XMP metadata stream, a trailer /ID and no encryption (qpdf)", () => {
    const objects = qpdfObjects(pdf);
    const catalog = objects.get(objects.trailer["/Root"]);
    const [intent] = catalog["/OutputIntents"] as Record<string, unknown>[];
    expect(intent?.["/S"]).toBe("/GTS_PDFA1");
    expect(intent?.["/OutputConditionIdentifier"]).toBe("u:sRGB IEC61966-2.1");
    expect(objects.get(intent?.["/DestOutputProfile"])["/N"]).toBe(3);
    const metadata = objects.get(catalog["/Metadata"]);
    expect([metadata["/Type"], metadata["/Subtype"], metadata["/Filter"]]).toEqual(["/Metadata", "/XML", undefined]);
    const id = objects.trailer["/ID"] as string[];
    expect(id).toHaveLength(2);
    expect(id.every((s) => /^b:[0-9a-f]{32}$/.test(s))).toBe(true);
    expect(objects.trailer["/Encrypt"]).toBeUndefined();
  });

  it("embeds the XML as an associated file: /AF, /EmbeddedFiles, /F and /UF, Alternative, text/xml with /Params", () => {
    const objects = qpdfObjects(pdf);
    const catalog = objects.get(objects.trailer["/Root"]);
    const [filespecRef] = catalog["/AF"] as string[];
    const names = ((catalog["/Names"] as Record<string, Record<string, unknown>>)["/EmbeddedFiles"]?.["/Names"] ??
      []) as string[];
    expect(names).toEqual(["u:factur-x.xml", filespecRef]);
    const filespec = objects.get(filespecRef);
    expect(filespec).toMatchObject({
      "/Type": "/Filespec",
      "/F": "u:factur-x.xml",
      "/UF": "u:factur-x.xml",
      "/AFRelationship": "/Alternative",
      "/Desc": "u:Factur-X invoice",
    });
    const file = objects.get((filespec["/EF"] as Record<string, unknown>)["/F"]);
    expect(file["/Type"]).toBe("/EmbeddedFile");
    expect(file["/Subtype"]).toBe("/text/xml"); // qpdf decodes the name: the file has the spelling Factur-X asks for
    expect(pdf.toString("latin1")).toMatch(/\/Type \/EmbeddedFile \/Subtype \/text#2Fxml\b/);
    const params = file["/Params"] as Record<string, unknown>;
    expect(params["/Size"]).toBe(xml.length);
    expect(params["/ModDate"]).toMatch(/^u:D:\d{14}\+00'00'$/);
  });

  it("pdfdetach lists the file and saves the very bytes given", () => {
    expect(embeddedFileNames(pdf)).toEqual(["factur-x.xml"]);
    expect(embeddedFile(pdf, 1).equals(xml)).toBe(true);
  });

  it("keeps the XMP in step with the Info dictionary (pdfinfo) and declares PDF/A-3b and the fx properties", () => {
    const info = pdfInfo(pdf);
    const xmp = xmpProperties(xmpPacket(pdf));
    expect(xmp["pdfaid:part"]).toBe("3");
    expect(xmp["pdfaid:conformance"]).toBe("B");
    expect(info.Title).toBe(title);
    expect(altText(xmp["dc:title"])).toBe(title);
    expect(info.Author).toBe("山田 & 子");
    expect((xmp["dc:creator"] as { "rdf:Seq": { "rdf:li": string } })["rdf:Seq"]["rdf:li"]).toBe("山田 & 子");
    expect(info.Subject).toBe("御請求 <2026>");
    expect(altText(xmp["dc:description"])).toBe("御請求 <2026>");
    expect(info.Keywords).toBe("請求, INV-7");
    expect(xmp["pdf:Keywords"]).toBe("請求, INV-7");
    expect(info.Producer).toBe(xmp["pdf:Producer"]);
    expect(info.Creator).toBe(xmp["xmp:CreatorTool"]);
    const created = new Date(String(xmp["xmp:CreateDate"]));
    expect(new Date(String(xmp["xmp:ModifyDate"])).getTime()).toBe(created.getTime());
    expect(new Date(info.CreationDate ?? "").getTime()).toBe(created.getTime());
    expect(new Date(info.ModDate ?? "").getTime()).toBe(created.getTime());
    expect(info.JavaScript).toBe("no");
    expect(info.Encrypted).toBe("no");
    expect(xmp).toMatchObject({
      "fx:DocumentType": "INVOICE",
      "fx:DocumentFileName": "factur-x.xml",
      "fx:Version": "1.0",
      "fx:ConformanceLevel": "EN 16931",
    });
    const schemas = JSON.stringify(xmp["pdfaExtension:schemas"]);
    expect(schemas).toContain("urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#");
    for (const name of ["DocumentType", "DocumentFileName", "Version", "ConformanceLevel"])
      expect(schemas).toContain(name);
  });

  it("leaves links printable (/F 4), no JavaScript action, every font embedded, and the text extractable", () => {
    const all = qpdfObjects(pdf).all();
    const annotations = all.filter((o) => o["/Type"] === "/Annot");
    expect(annotations.length).toBe(2);
    expect(annotations.map((a) => a["/F"])).toEqual([4, 4]);
    expect(JSON.stringify(all)).not.toMatch(/\/JavaScript|"\/JS"/);
    const descriptors = all.filter((o) => o["/Type"] === "/FontDescriptor");
    expect(descriptors.length).toBeGreaterThan(0);
    expect(descriptors.every((d) => d["/FontFile2"] ?? d["/FontFile"] ?? d["/FontFile3"])).toBe(true);
    expect(pdfText(pdf)).toContain("請求書INV-7");
  });

  it("keeps the structure tree, /Marked, /Lang and the outline", () => {
    const objects = qpdfObjects(pdf);
    const catalog = objects.get(objects.trailer["/Root"]);
    expect(catalog["/StructTreeRoot"]).toBeDefined();
    expect((catalog["/MarkInfo"] as Record<string, unknown>)["/Marked"]).toBe(true);
    expect(catalog["/Lang"]).toBe("u:ja");
    const outline = objects.get(catalog["/Outlines"]);
    expect(objects.get(outline["/First"])["/Title"]).toBe("u:請求書 INV-7");
    expect(pdfInfo(pdf).Tagged).toBe("yes");
  });
});

describe("PDF/A-2b", () => {
  it("declares part 2 and embeds nothing", async () => {
    const { pdf } = await render({ standard: "PDF/A-2b" });
    const xmp = xmpProperties(xmpPacket(pdf));
    expect([xmp["pdfaid:part"], xmp["pdfaid:conformance"], xmp["fx:DocumentType"]]).toEqual(["2", "B", undefined]);
    const objects = qpdfObjects(pdf);
    const catalog = objects.get(objects.trailer["/Root"]);
    expect([catalog["/AF"], catalog["/Names"]]).toEqual([undefined, undefined]);
    expect(embeddedFileNames(pdf)).toEqual([]);
  });

  it("without any archival option the file is as before: no XMP, no OutputIntent, no /ID", async () => {
    const { pdf } = await render({});
    const objects = qpdfObjects(pdf);
    const catalog = objects.get(objects.trailer["/Root"]);
    expect([catalog["/Metadata"], catalog["/OutputIntents"], objects.trailer["/ID"]]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe("refusals", () => {
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof PdfArchiveError ? { code: error.code, field: error.field } : error),
    );

  it("PDF/A with password protection: PDFA_WITH_PROTECTION on content.protection, before printing", async () => {
    const protection = { allowPrinting: true, allowCopying: true, allowModifying: true };
    expect(await refusal(render({ standard: "PDF/A-2b", protection }))).toEqual({
      code: "PDFA_WITH_PROTECTION",
      field: "content.protection",
    });
  });

  it("attachments with PDF/A-2b, or with no standard: ATTACHMENTS_NEED_PDFA3", async () => {
    for (const standard of ["PDF/A-2b", undefined] as const) {
      const request = { attachments: [facturXFile], ...(standard && { standard }) };
      expect(await refusal(render(request))).toEqual({ code: "ATTACHMENTS_NEED_PDFA3", field: "attachments" });
    }
  });

  it("a font that is not embedded: PDFA_NOT_POSSIBLE, naming the font", async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]).drawText("Helvetica", { font: await doc.embedFont(StandardFonts.Helvetica) });
    const error = await postprocessPdf(await doc.save({ useObjectStreams: false }), {
      title: "t",
      standard: "PDF/A-2b",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfArchiveError);
    expect((error as PdfArchiveError).code).toBe("PDFA_NOT_POSSIBLE");
    expect((error as PdfArchiveError).message).toContain("Helvetica");
  });
});

describe("the archival pass on other shapes of PDF", () => {
  let raw: Buffer;
  beforeAll(async () => {
    // Chromium's own bytes: the renderer's output minus its update is not at hand, so print one here.
    raw = await chromiumPdf();
  });

  it("sets /F 4 on an annotation that has no flags", async () => {
    const unflagged = Buffer.from(
      raw.toString("latin1").replace(/\/Subtype \/Link(\s+)\/F 4/g, "/Subtype /Link$1    "),
      "latin1",
    );
    expect(
      qpdfObjects(unflagged)
        .all()
        .filter((o) => o["/Type"] === "/Annot")
        .map((a) => a["/F"]),
    ).toEqual([undefined, undefined]);
    const { pdf } = await postprocessPdf(unflagged, { title: "t", standard: "PDF/A-2b" });
    expect(
      qpdfObjects(pdf)
        .all()
        .filter((o) => o["/Type"] === "/Annot")
        .map((a) => a["/F"]),
    ).toEqual([4, 4]);
  });

  it("a PDF with object streams is rewritten first, then archived the same way", async () => {
    const packed = qpdfRewrite(raw, ["--object-streams=generate"]);
    expect(packed.toString("latin1")).toContain("/ObjStm");
    const { pdf, pageCount } = await postprocessPdf(packed, {
      title: "請求書",
      standard: "PDF/A-3b",
      attachments: [facturXFile],
      facturX,
    });
    expect(pageCount).toBe(1);
    expect(embeddedFile(pdf, 1).equals(xml)).toBe(true);
    expect(xmpProperties(xmpPacket(pdf))["pdfaid:part"]).toBe("3");
    expect(pdfInfo(pdf).Title).toBe("請求書");
  });
});

describe("the sRGB profile", () => {
  it("is accepted by poppler's colour management (lcms2) as an ICCBased colour space; a broken one is not", async () => {
    const { profile } = srgbIccProfile();
    expect(rasterWarnings(await iccImagePdf(profile))).toBe("");
    expect(rasterWarnings(await iccImagePdf(profile.subarray(0, 100)))).toMatch(/ICC/);
  });
});

/** A one-pixel image drawn in an ICCBased colour space with `profile`. */
async function iccImagePdf(profile: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([50, 50]);
  const icc = doc.context.register(doc.context.flateStream(profile, { N: 3 }));
  const image = doc.context.register(
    doc.context.flateStream(new Uint8Array([200, 30, 30]), {
      Type: "XObject",
      Subtype: "Image",
      Width: 1,
      Height: 1,
      BitsPerComponent: 8,
      ColorSpace: [PDFName.of("ICCBased"), icc],
    }),
  );
  page.node.setXObject(PDFName.of("Im1"), image);
  page.node.set(PDFName.of("Contents"), doc.context.register(doc.context.stream("q 50 0 0 50 0 0 cm /Im1 Do Q")));
  return doc.save();
}

/** Chromium's PDF of the test design, before any post-processing (two link annotations, tagged, outline). */
async function chromiumPdf(): Promise<Buffer> {
  const { launchChromium } = await import("#shared/render/chromium-launch.ts");
  const { prepareFontEnv } = await import("#shared/render/font-config.ts");
  const browser = await launchChromium({ fontEnv: await prepareFontEnv(), protocolTimeoutMs: 30_000 });
  try {
    const page = await browser.newPage();
    await page.setContent(`<html lang="ja"><body>${template}</body></html>`);
    return Buffer.from(await page.pdf({ tagged: true, outline: true }));
  } finally {
    await browser.close();
  }
}

function qpdfRewrite(pdf: Uint8Array, args: string[]): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "platen-pdf-a-"));
  try {
    writeFileSync(join(dir, "in.pdf"), pdf);
    execFileSync("qpdf", [...args, join(dir, "in.pdf"), join(dir, "out.pdf")]);
    return readFileSync(join(dir, "out.pdf"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
