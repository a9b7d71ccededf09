import { XMLParser } from "fast-xml-parser";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "#shared/clock.ts";
import { type DesignBundle, designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { acceptOrFail, download, errorOf, pollStatus } from "../helpers/async-http.ts";
import { baseInvoice, invoiceWith } from "../helpers/einvoice-model-fixtures.ts";
import { pagesUsedNow } from "../helpers/limits-stack.ts";
import { embeddedFile, embeddedFileNames, qpdfObjects, xmpPacket } from "../helpers/pdf-objects.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { pdfText } from "../helpers/pdf-tools.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, syncCaller } from "../helpers/sync-http.ts";

/** The request and file ids of a sync single answer (Request-Id, X-File-Mapping). */
const idsOf = (res: Response) => ({
  requestId: res.headers.get("request-id")!,
  fileId: decodeFileMapping(res.headers.get("x-file-mapping"))[0]!.fileId,
});

/**
 * E-invoices end to end (shared/einvoice/README.md): a design with `einvoice` prints the computed totals,
 * Factur-X is a PDF/A-3b carrying factur-x.xml, the XML downloads alone and in ZIPs, and an invoice that
 * breaks a rule is refused before anything is printed or billed. Read back with poppler and qpdf.
 */

let stack: SharedStack;
let tenant: Tenant;
const designs: Record<string, string> = {};

/** A design whose mapping is the whole model, sent as the `invoice` param. */
function invoiceDesign(label: string, format: string): DesignBundle {
  return {
    manifest: designManifestSchema.parse({
      label,
      parameters: [{ name: "customer", type: "text", label: "Customer" }],
      einvoice: { format, data: "einvoice.liquid" },
    }),
    template:
      "<h1>Invoice {{ einvoice.number }}</h1>{% for l in einvoice.lines %}<p>{{ l.name }} {{ l.netAmount }}</p>{% endfor %}" +
      "<p>Total due {{ einvoice.totals.grandTotal }} {{ einvoice.currency }}</p>",
    css: "",
    assets: {},
    einvoiceMapping: "{{ invoice | json }}",
  };
}

beforeAll(async () => {
  stack = await sharedStack();
  tenant = await createTenant(stack, "E-invoices");
  useStackEmulators(stack.dataDir);
  for (const [label, format] of [
    ["Factur-X invoice", "factur-x"],
    ["XRechnung invoice", "xrechnung"],
  ] as const) {
    const published = await publishDesign(
      { workspaceId: tenant.workspaceId, bundle: invoiceDesign(label, format) },
      { clock: systemClock },
    );
    designs[format] = published.id;
  }
});

afterAll(async () => {
  await stack?.release();
});

const single = (designId: string, invoice: unknown, fileName = "invoice-42") => ({
  designId,
  version: 1,
  content: { fileName, params: { customer: "Acheteur SAS", invoice } },
});

describe("sync generation of a Factur-X design", () => {
  it("answers a PDF/A-3b that prints the computed total and embeds the same XML the download answers", async () => {
    const sync = syncCaller(stack, tenant.appKey);
    const res = await sync("single", single(designs["factur-x"]!, baseInvoice()));
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    // The word spaces of the fallback font do not survive pdftotext here: the words and the number do.
    expect(pdfText(pdf)).toMatch(/Total\s*due\s*51\.99\s*EUR/);

    expect(embeddedFileNames(pdf)).toEqual(["factur-x.xml"]);
    const embedded = embeddedFile(pdf, 1);
    expect(xmpPacket(pdf)).toMatch(/pdfaid:part[^0-9]*3/);
    const objects = qpdfObjects(pdf);
    const catalog = objects.get(objects.trailer["/Root"]);
    expect((catalog["/OutputIntents"] as Record<string, unknown>[])[0]?.["/S"]).toBe("/GTS_PDFA1");
    const [filespec] = catalog["/AF"] as string[];
    expect(objects.get(filespec)["/AFRelationship"]).toBe("/Alternative");

    const { requestId, fileId } = idsOf(res);
    const xmlRes = await download(stack, tenant.appKey, requestId, `${fileId}/einvoice`);
    expect(xmlRes.status).toBe(200);
    expect(xmlRes.headers.get("content-type")).toBe("application/xml");
    expect(xmlRes.headers.get("content-disposition")).toContain('filename="invoice-42.xml"');
    const xml = Buffer.from(await xmlRes.arrayBuffer());
    expect(xml.equals(embedded)).toBe(true);

    const parsed = new XMLParser({ removeNSPrefix: true }).parse(xml.toString("utf8"));
    const settlement = parsed.CrossIndustryInvoice.SupplyChainTradeTransaction.ApplicableHeaderTradeSettlement;
    expect(Number(settlement.SpecifiedTradeSettlementHeaderMonetarySummation.GrandTotalAmount)).toBe(51.99);
    expect(parsed.CrossIndustryInvoice.ExchangedDocumentContext.GuidelineSpecifiedDocumentContextParameter.ID).toBe(
      "urn:cen.eu:en16931:2017",
    );
  });

  it("refuses an invoice that breaks a rule with 422 EINVOICE_INVALID naming the field and rule, in en and ja, billing nothing", async () => {
    const before = await pagesUsedNow(stack, tenant.workspaceId);
    const broken = invoiceWith((i) => {
      delete i.seller!.name;
    });
    const sync = syncCaller(stack, tenant.appKey);
    const en = await errorOf(await sync("single", single(designs["factur-x"]!, broken)));
    expect([en.status, en.body.code]).toEqual([422, "EINVOICE_INVALID"]);
    expect(en.body.details).toContainEqual(expect.objectContaining({ field: "seller.name", code: "BR-06" }));
    const ja = await errorOf(
      await sync("single", single(designs["factur-x"]!, broken), { headers: { "accept-language": "ja" } }),
    );
    const detail = ja.body.details.find((d) => d.code === "BR-06");
    expect(detail?.message).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(before);
  });

  it("answers a sync multiple request with a ZIP that carries each file's XML beside its PDF, the XML the PDF embeds", async () => {
    const sync = syncCaller(stack, tenant.appKey);
    const second = invoiceWith((i) => {
      i.number = "INV-43";
    });
    const res = await sync("multiple", {
      designId: designs["factur-x"]!,
      version: 1,
      contents: [
        { fileName: "first", params: { invoice: baseInvoice() } },
        { fileName: "second", params: { invoice: second } },
      ],
    });
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/zip"]);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    expect(Object.keys(zip.files).sort()).toEqual(["first.pdf", "first.xml", "second.pdf", "second.xml"]);
    for (const [name, number] of [
      ["second", "INV-43"],
      ["first", baseInvoice().number],
    ] as const) {
      const xml = Buffer.from(await zip.file(`${name}.xml`)!.async("uint8array"));
      const pdf = Buffer.from(await zip.file(`${name}.pdf`)!.async("uint8array"));
      expect(embeddedFile(pdf, 1).equals(xml)).toBe(true);
      expect(xml.toString("utf8")).toContain(`<ram:ID>${number}</ram:ID>`);
    }
  });

  it("answers TEMPLATE_FAILED naming einvoice.liquid when the mapping renders no JSON", async () => {
    const sync = syncCaller(stack, tenant.appKey);
    const res = await errorOf(await sync("single", single(designs["factur-x"]!, undefined)));
    expect([res.status, res.body.code]).toEqual([422, "TEMPLATE_FAILED"]);
    // Without the invoice param the whole-model mapping renders nothing: the output stops at its start.
    expect(String(res.body.message)).toContain("einvoice.liquid: the mapping did not render JSON at line 1, column 1");
  });
});

describe("async generation and downloads", () => {
  it("fails only the file that breaks a rule, and the request ZIP carries each XML beside its PDF", async () => {
    const before = await pagesUsedNow(stack, tenant.workspaceId);
    const body = {
      designId: designs.xrechnung!,
      version: 1,
      contents: [
        { fileName: "good", params: { invoice: baseInvoice() } },
        {
          fileName: "bad",
          params: {
            invoice: invoiceWith((i) => {
              delete i.buyerReference;
            }),
          },
        },
      ],
    };
    const accepted = await acceptOrFail(stack, tenant.appKey, "multiple", body);
    const status = await pollStatus(stack, tenant.appKey, accepted.requestId);
    expect(status.body.status).toBe("completed");
    const failed = status.body.failedFiles ?? [];
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ fileName: "bad", code: "EINVOICE_INVALID" });
    expect(failed[0]!.message).toContain("BR-DE-15");

    const zipRes = await download(stack, tenant.appKey, accepted.requestId);
    expect(zipRes.status).toBe(200);
    const zip = await JSZip.loadAsync(Buffer.from(await zipRes.arrayBuffer()));
    expect(Object.keys(zip.files).sort()).toEqual(["good.pdf", "good.xml"]);
    const xml = await zip.file("good.xml")!.async("string");
    expect(xml).toContain("urn:xeinkauf.de:kosit:xrechnung_3.0");

    // XRechnung is the XML alone: the PDF stays the plain human-readable copy.
    const pdf = Buffer.from(await zip.file("good.pdf")!.async("uint8array"));
    expect(embeddedFileNames(pdf)).toEqual([]);
    // One page delivered, one billed: the refused file costs nothing.
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(before + 1);
  });

  it("answers 404 for the XML of a file whose design writes no e-invoice", async () => {
    const sync = syncCaller(stack, tenant.appKey);
    const res = await sync("single", {
      designId: tenant.invoiceId,
      version: 1,
      content: { fileName: "plain", params: {} },
    });
    expect(res.status).toBe(200);
    const { requestId, fileId } = idsOf(res);
    const xml = await download(stack, tenant.appKey, requestId, `${fileId}/einvoice`);
    const refused = await errorOf(xml);
    expect([refused.status, refused.body.code]).toEqual([404, "FILE_NOT_FOUND"]);
  });
});
