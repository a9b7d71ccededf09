/**
 * The XMP metadata packet of a PDF/A file (shared/render/README.md#pdfa-and-embedded-files): the
 * PDF/A identification, the document's Info entries in their XMP form, and, for a Factur-X
 * invoice, the `fx` properties with the extension schema PDF/A asks for every property outside
 * its predefined schemas. Written as text, not through an XML library: the packet's shape is
 * fixed and only the values vary, each escaped.
 */
export interface XmpFields {
  /** PDF/A part (2 or 3) and conformance level (B). */
  part: 2 | 3;
  conformance: "B";
  title: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creatorTool?: string;
  producer?: string;
  /** One instant for both dates, as the Info dictionary carries them. */
  createDate: Date;
  modifyDate: Date;
  facturX?: FacturXXmp;
}

/** The Factur-X properties (namespace `urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#`, prefix `fx`). */
export interface FacturXXmp {
  documentType: string;
  fileName: string;
  version: string;
  conformanceLevel: string;
}

export const FACTUR_X_NAMESPACE = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#";

/** The packet, UTF-8, wrapped in the `xpacket` processing instructions PDF/A requires. */
export function buildXmp(fields: XmpFields): Buffer {
  const descriptions = [
    description("pdfaid", "http://www.aiim.org/pdfa/ns/id/", [
      `<pdfaid:part>${fields.part}</pdfaid:part>`,
      `<pdfaid:conformance>${fields.conformance}</pdfaid:conformance>`,
    ]),
    description("dc", "http://purl.org/dc/elements/1.1/", [
      "<dc:format>application/pdf</dc:format>",
      langAlt("dc:title", fields.title),
      ...(fields.author === undefined
        ? []
        : [`<dc:creator><rdf:Seq><rdf:li>${escapeXml(fields.author)}</rdf:li></rdf:Seq></dc:creator>`]),
      ...(fields.subject === undefined ? [] : [langAlt("dc:description", fields.subject)]),
    ]),
    description("xmp", "http://ns.adobe.com/xap/1.0/", [
      `<xmp:CreateDate>${xmpDate(fields.createDate)}</xmp:CreateDate>`,
      `<xmp:ModifyDate>${xmpDate(fields.modifyDate)}</xmp:ModifyDate>`,
      `<xmp:MetadataDate>${xmpDate(fields.modifyDate)}</xmp:MetadataDate>`,
      ...(fields.creatorTool === undefined
        ? []
        : [`<xmp:CreatorTool>${escapeXml(fields.creatorTool)}</xmp:CreatorTool>`]),
    ]),
    description("pdf", "http://ns.adobe.com/pdf/1.3/", [
      ...(fields.producer === undefined ? [] : [`<pdf:Producer>${escapeXml(fields.producer)}</pdf:Producer>`]),
      ...(fields.keywords === undefined ? [] : [`<pdf:Keywords>${escapeXml(fields.keywords)}</pdf:Keywords>`]),
    ]),
    ...(fields.facturX ? facturXDescriptions(fields.facturX) : []),
  ];
  const packet = [
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    ...descriptions,
    "</rdf:RDF>",
    "</x:xmpmeta>",
    '<?xpacket end="w"?>',
  ].join("\n");
  return Buffer.from(packet, "utf8");
}

function description(prefix: string, namespace: string, properties: string[]): string {
  return `<rdf:Description rdf:about="" xmlns:${prefix}="${namespace}">\n${properties.join("\n")}\n</rdf:Description>`;
}

function langAlt(name: string, value: string): string {
  return `<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(value)}</rdf:li></rdf:Alt></${name}>`;
}

/** The `fx` values and the extension schema that declares them (PDF/A-3, clause 6.6.2.3). */
function facturXDescriptions(fx: FacturXXmp): string[] {
  const property = (name: string, text: string) =>
    `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${text}</pdfaProperty:description></rdf:li>`;
  return [
    description("fx", FACTUR_X_NAMESPACE, [
      `<fx:DocumentType>${escapeXml(fx.documentType)}</fx:DocumentType>`,
      `<fx:DocumentFileName>${escapeXml(fx.fileName)}</fx:DocumentFileName>`,
      `<fx:Version>${escapeXml(fx.version)}</fx:Version>`,
      `<fx:ConformanceLevel>${escapeXml(fx.conformanceLevel)}</fx:ConformanceLevel>`,
    ]),
    `<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
<pdfaSchema:namespaceURI>${FACTUR_X_NAMESPACE}</pdfaSchema:namespaceURI>
<pdfaSchema:prefix>fx</pdfaSchema:prefix>
<pdfaSchema:property><rdf:Seq>
${property("DocumentFileName", "name of the embedded XML invoice file")}
${property("DocumentType", "INVOICE")}
${property("Version", "The actual version of the Factur-X XML schema")}
${property("ConformanceLevel", "The conformance level of the embedded Factur-X data")}
</rdf:Seq></pdfaSchema:property>
</rdf:li></rdf:Bag></pdfaExtension:schemas>
</rdf:Description>`,
  ];
}

/** Text content and attribute values alike. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]};`);
}

/**
 * Characters XML 1.0 cannot carry (C0 controls but tab, line feed and carriage return; U+FFFE,
 * U+FFFF; lone surrogates) taken out, so the same value fits the Info dictionary and the packet.
 */
export function xmlSafeText(text: string): string {
  let safe = "";
  for (const char of text) {
    // XML 1.0's Char production; a lone surrogate comes out of the iteration on its own and is dropped.
    const code = char.codePointAt(0) ?? 0;
    const allowed =
      code === 0x9 ||
      code === 0xa ||
      code === 0xd ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      code >= 0x10000;
    if (allowed) safe += char;
  }
  return safe;
}

/** `2026-11-28T15:14:28+00:00`: seconds, UTC, as the Info dictionary's `D:20261128151428+00'00'`. */
export function xmpDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

/** The Info dictionary's form of the same instant. */
export function pdfDate(date: Date): string {
  const iso = date.toISOString();
  return `D:${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}+00'00'`;
}
