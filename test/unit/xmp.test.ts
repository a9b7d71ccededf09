import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import {
  checkArchiveOptions,
  facturXRelationship,
  PdfArchiveError,
  type PdfArchiveOptions,
} from "#shared/render/pdf-a-options.ts";
import { buildXmp, escapeXml, pdfDate, xmlSafeText, xmpDate } from "#shared/render/xmp.ts";

/** The XMP writer (read back with fast-xml-parser) and the rules between the archival options. */
const parse = (packet: Buffer) => {
  const parsed = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(packet.toString("utf8"));
  const descriptions = [parsed["x:xmpmeta"]["rdf:RDF"]["rdf:Description"]].flat() as Record<string, unknown>[];
  return Object.assign({}, ...descriptions) as Record<string, unknown>;
};
const alt = (value: unknown) =>
  (value as { "rdf:Alt": { "rdf:li": { "#text": string } } })["rdf:Alt"]["rdf:li"]["#text"];
const date = new Date("2026-11-28T15:14:28.750Z");
const fields = { part: 3, conformance: "B", title: "t", createDate: date, modifyDate: date } as const;

describe("XMP writer", () => {
  it("escapes <&>\"' and keeps Japanese as it is, in UTF-8", () => {
    const title = `請求書 <INV-1> & "見積" 'A' 日本語`;
    const packet = buildXmp({ ...fields, title, author: "山田 <太郎>", subject: "a & b", keywords: `"x", <y>` });
    const text = packet.toString("utf8");
    expect(text).toContain("請求書 &lt;INV-1&gt; &amp; &quot;見積&quot; &apos;A&apos; 日本語");
    const xmp = parse(packet);
    expect(alt(xmp["dc:title"])).toBe(title);
    expect(alt(xmp["dc:description"])).toBe("a & b");
    expect((xmp["dc:creator"] as { "rdf:Seq": { "rdf:li": string } })["rdf:Seq"]["rdf:li"]).toBe("山田 <太郎>");
    expect(xmp["pdf:Keywords"]).toBe(`"x", <y>`);
  });

  it("wraps the packet in xpacket instructions with the UTF-8 byte-order mark and declares part and conformance", () => {
    const packet = buildXmp({ ...fields, part: 2 });
    expect(packet.subarray(0, 21).toString("hex")).toBe(Buffer.from('<?xpacket begin="\ufeff"').toString("hex"));
    expect(packet.subarray(17, 20).toString("hex")).toBe("efbbbf");
    expect(packet.toString("utf8").trimEnd().endsWith('<?xpacket end="w"?>')).toBe(true);
    const xmp = parse(packet);
    expect([xmp["pdfaid:part"], xmp["pdfaid:conformance"]]).toEqual(["2", "B"]);
    expect(xmp["dc:creator"]).toBeUndefined(); // no author, no dc:creator
  });

  it("writes the fx properties with their extension schema only when Factur-X is asked for", () => {
    const facturX = { documentType: "INVOICE", fileName: "factur-x.xml", version: "1.0", conformanceLevel: "EN 16931" };
    const xmp = parse(buildXmp({ ...fields, facturX }));
    expect(xmp["fx:ConformanceLevel"]).toBe("EN 16931");
    expect(xmp["fx:Version"]).toBe("1.0");
    const schema = (xmp["pdfaExtension:schemas"] as { "rdf:Bag": { "rdf:li": Record<string, unknown> } })["rdf:Bag"][
      "rdf:li"
    ];
    expect(schema["pdfaSchema:prefix"]).toBe("fx");
    expect(schema["pdfaSchema:namespaceURI"]).toBe("urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#");
    const properties = (schema["pdfaSchema:property"] as { "rdf:Seq": { "rdf:li": Record<string, string>[] } })[
      "rdf:Seq"
    ]["rdf:li"];
    expect(properties.map((p) => p["pdfaProperty:name"]).sort()).toEqual([
      "ConformanceLevel",
      "DocumentFileName",
      "DocumentType",
      "Version",
    ]);
    expect(
      properties.every((p) => p["pdfaProperty:valueType"] === "Text" && p["pdfaProperty:category"] === "external"),
    ).toBe(true);
    expect(parse(buildXmp(fields))["pdfaExtension:schemas"]).toBeUndefined();
  });

  it("writes dates as the same instant in both forms, to the second", () => {
    expect(xmpDate(date)).toBe("2026-11-28T15:14:28+00:00");
    expect(pdfDate(date)).toBe("D:20261128151428+00'00'");
  });

  it("takes out what XML 1.0 cannot carry, keeps tabs, new lines and astral characters", () => {
    expect(xmlSafeText("a\u0001b\tc\nd\ufffe\ud83d\ude00\ud800")).toBe("ab\tc\nd\ud83d\ude00");
    expect(escapeXml("<&>\"'")).toBe("&lt;&amp;&gt;&quot;&apos;");
  });
});

describe("archival options", () => {
  const xml = {
    name: "factur-x.xml",
    bytes: new Uint8Array([60]),
    mimeType: "text/xml",
    relationship: "Alternative",
  } as const;
  const facturX = {
    documentType: "INVOICE",
    fileName: "factur-x.xml",
    version: "1.0",
    conformanceLevel: "EN 16931",
  } as const;
  const refusal = (options: PdfArchiveOptions, protection?: unknown) => {
    try {
      checkArchiveOptions(options, protection);
      return undefined;
    } catch (error) {
      return error instanceof PdfArchiveError ? `${error.code} ${error.field}` : error;
    }
  };

  it("accepts PDF/A-3b with a Factur-X XML, PDF/A-2b alone, and nothing at all (even with protection)", () => {
    expect(refusal({ standard: "PDF/A-3b", attachments: [xml], facturX })).toBeUndefined();
    expect(refusal({ standard: "PDF/A-2b" })).toBeUndefined();
    expect(refusal({}, { allowPrinting: true })).toBeUndefined();
  });

  it("refuses PDF/A with protection on content.protection, and attachments without PDF/A-3b", () => {
    expect(refusal({ standard: "PDF/A-3b" }, { allowPrinting: true })).toBe("PDFA_WITH_PROTECTION content.protection");
    expect(refusal({ standard: "PDF/A-2b", attachments: [xml] })).toBe("ATTACHMENTS_NEED_PDFA3 attachments");
    expect(refusal({ attachments: [xml] })).toBe("ATTACHMENTS_NEED_PDFA3 attachments");
    expect(refusal({ standard: "PDF/A-2b", facturX })).toBe("ATTACHMENTS_NEED_PDFA3 attachments");
  });

  it("refuses repeated or empty names, bad MIME types, and a Factur-X XML that is missing, not XML or wrongly related", () => {
    const a3 = (attachments: (typeof xml | Record<string, unknown>)[], withFacturX = false) =>
      refusal({ standard: "PDF/A-3b", attachments: attachments as never, ...(withFacturX && { facturX }) });
    expect(a3([xml, xml])).toBe("ATTACHMENT_INVALID attachments");
    expect(a3([{ ...xml, name: " " }])).toBe("ATTACHMENT_INVALID attachments");
    expect(a3([{ ...xml, mimeType: "xml" }])).toBe("ATTACHMENT_INVALID attachments");
    expect(a3([{ ...xml, name: "other.xml" }], true)).toBe("ATTACHMENT_INVALID attachments");
    expect(a3([{ ...xml, mimeType: "application/json" }], true)).toBe("ATTACHMENT_INVALID attachments");
    expect(a3([{ ...xml, relationship: "Data" }], true)).toBe("ATTACHMENT_INVALID attachments");
  });

  it("relates the XML as Alternative for BASIC, EN 16931 and EXTENDED, as Data for MINIMUM and BASIC WL", () => {
    expect(
      ["MINIMUM", "BASIC WL", "BASIC", "EN 16931", "EXTENDED"].map((level) => facturXRelationship(level as never)),
    ).toEqual(["Data", "Data", "Alternative", "Alternative", "Alternative"]);
  });
});
