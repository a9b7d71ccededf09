import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designApi } from "../helpers/design-fixtures.ts";
import { baseInvoice, invoiceWith } from "../helpers/einvoice-model-fixtures.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";

/**
 * E-invoice designs over the design API of the local stack (shared/authoring/README.md#e-invoices): a
 * Factur-X design with its einvoice.liquid is published from a zip and exported with it; a broken
 * mapping or a sample invoice that breaks a rule is 422 DESIGN_BUNDLE_INVALID naming einvoice.liquid
 * (in English and Japanese); a draft keeps its mapping; a generation request protecting the design's
 * PDF/A documents is 400 naming content.protection.
 */

let stack: SharedStack;
let call: ReturnType<typeof designApi>;
let tenant: Tenant;
let writer: { token: string };

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  call = designApi(stack);
  tenant = await createTenant(stack, "design e-invoices");
  const client = await makeConfidentialClient(tenant.workspaceId, ["designs:read", "designs:write"]);
  writer = { token: await clientCredentialsToken(stack, client, "designs:read designs:write") };
});

afterAll(() => stack?.release());

/**
 * The mapping: the invoice number and the buyer from params of their own, every other field of the model
 * from the `rest` param, key by key.
 */
const MAPPING = [
  "{",
  '  "number": {{ number | json }},',
  '  "buyer": {{ buyer | json }},',
  "  {% for entry in rest %}{{ entry[0] | json }}: {{ entry[1] | json }}{% unless forloop.last %},{% endunless %}{% endfor %}",
  "}",
].join("\n");

/** The design's files, with the sample invoice as its sampleParams. */
function invoiceFiles(extra: { sampleInvoice?: ReturnType<typeof baseInvoice> } = {}) {
  const { number, buyer, ...rest } = extra.sampleInvoice ?? baseInvoice();
  const manifest = {
    label: "Factur-X invoice",
    parameters: [{ name: "number", type: "text", label: "Invoice number" }],
    einvoice: { format: "zugferd", data: "einvoice.liquid" },
    sampleParams: { number, buyer, rest },
  };
  return {
    "design.json": JSON.stringify(manifest, null, 2),
    "template.liquid": "<h1>Invoice {{ number }}</h1><p>Total {{ einvoice.totals.grandTotal }}</p>",
    "einvoice.liquid": MAPPING,
  };
}

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, text] of Object.entries(files)) zip.file(name, text);
  return zip.generateAsync({ type: "nodebuffer" });
}

/** A design API call with Accept-Language: ja (the helper sends no language). */
async function publishJa(designId: string, zip: Buffer) {
  const res = await fetch(`${stack.baseUrl}/designs/${designId}/versions`, {
    method: "POST",
    headers: { authorization: `Bearer ${writer.token}`, "content-type": "application/zip", "accept-language": "ja" },
    body: new Uint8Array(zip),
  });
  return { status: res.status, body: (await res.json()) as { code: string; details: Record<string, unknown>[] } };
}

let designId: string;

describe("publishing an e-invoice design", () => {
  it("creates a Factur-X design from a zip with einvoice.liquid, and exports the mapping with it", async () => {
    const created = await call("POST", "/designs", writer, await zipOf(invoiceFiles()));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    designId = created.body.id;

    const exported = await call("GET", `/designs/${designId}/versions/1/bundle`, writer);
    expect(exported.status).toBe(200);
    const zip = await JSZip.loadAsync(exported.bytes);
    expect(Object.keys(zip.files).sort()).toEqual(["design.json", "einvoice.liquid", "style.css", "template.liquid"]);
    expect(await zip.file("einvoice.liquid")!.async("string")).toBe(MAPPING);
    const manifest = JSON.parse(await zip.file("design.json")!.async("string"));
    // zugferd is read as factur-x, which prints PDF/A-3b.
    expect(manifest.einvoice).toEqual({ format: "factur-x", data: "einvoice.liquid" });
    expect(manifest.pdf.standard).toBe("PDF/A-3b");

    // Publishing the export again is the same content: the mapping is part of the hash.
    const again = await call("POST", `/designs/${designId}/versions`, writer, exported.bytes);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const versions = (await call("GET", `/designs/${designId}/versions`, writer)).body.versions;
    expect(versions[0].sha256).toBe(versions[1].sha256);
  });

  it("refuses a sample invoice that breaks BR-06: 422 naming einvoice.liquid, seller.name and the rule, en and ja", async () => {
    const broken = invoiceWith((i) => {
      delete i.seller!.name;
    });
    const zip = await zipOf(invoiceFiles({ sampleInvoice: broken }));
    const en = await call("POST", `/designs/${designId}/versions`, writer, zip);
    expect([en.status, en.body.code]).toEqual([422, "DESIGN_BUNDLE_INVALID"]);
    expect(en.body.details).toEqual([
      expect.objectContaining({ file: "einvoice.liquid", field: "seller.name", code: "BR-06" }),
    ]);
    expect(en.body.details[0].message).toContain("The seller's name (BT-27) is required.");
    const ja = await publishJa(designId, zip);
    expect(ja.status).toBe(422);
    expect(ja.body.details[0]).toMatchObject({ file: "einvoice.liquid", field: "seller.name", code: "BR-06" });
    expect(String(ja.body.details[0]!.message)).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    // Nothing was published.
    expect((await call("GET", `/designs/${designId}`, writer)).body.latestVersion).toBe(2);
  });

  it("refuses a mapping that is not Liquid at its line and column, and one that renders no JSON", async () => {
    const syntax = await call("POST", `/designs/${designId}/versions`, writer, {
      ...JSON.parse(invoiceFiles()["design.json"]),
      template: "<p>x</p>",
      einvoiceMapping: "{\n  {% for x in rest %}\n}",
    });
    expect(syntax.status).toBe(422);
    expect(syntax.body.details).toEqual([expect.objectContaining({ file: "einvoice.liquid", line: 2, column: 3 })]);

    const notJson = await call("POST", `/designs/${designId}/versions`, writer, {
      ...JSON.parse(invoiceFiles()["design.json"]),
      template: "<p>x</p>",
      einvoiceMapping: '{ "number": {{ number }} }',
    });
    expect(notJson.status).toBe(422);
    expect(notJson.body.details).toEqual([
      expect.objectContaining({ file: "einvoice.liquid", code: "TEMPLATE_FAILED" }),
    ]);
    expect(notJson.body.details[0].message).toContain("not JSON at line 1");
  });

  it("refuses einvoice without einvoice.liquid, and factur-x with PDF/A-2b naming pdf.standard", async () => {
    const { "einvoice.liquid": _, ...withoutMapping } = invoiceFiles();
    const missing = await call("POST", `/designs/${designId}/versions`, writer, await zipOf(withoutMapping));
    expect(missing.status).toBe(422);
    expect(missing.body.details).toEqual([expect.objectContaining({ file: "design.json", field: "einvoice" })]);

    const manifest = { ...JSON.parse(invoiceFiles()["design.json"]), pdf: { standard: "PDF/A-2b" } };
    const files = { ...invoiceFiles(), "design.json": JSON.stringify(manifest, null, 2) };
    const standard = await call("POST", `/designs/${designId}/versions`, writer, await zipOf(files));
    expect([standard.status, standard.body.code]).toEqual([422, "DESIGN_BUNDLE_INVALID"]);
    expect(standard.body.details).toEqual([
      expect.objectContaining({ file: "design.json", field: "pdf.standard", line: expect.any(Number) }),
    ]);
  });

  it("a draft keeps its mapping, warns about it, and publishes with it", async () => {
    const form = {
      ...JSON.parse(invoiceFiles()["design.json"]),
      template: "<p>{{ number }}</p>",
      einvoiceMapping: "{% if %}",
    };
    const saved = await call("PUT", `/designs/${designId}/draft`, writer, form);
    expect(saved.status).toBe(200);
    expect(saved.body.warnings).toEqual([expect.objectContaining({ file: "einvoice.liquid", line: 1 })]);
    const fixed = await call("PUT", `/designs/${designId}/draft`, writer, { ...form, einvoiceMapping: MAPPING });
    expect(fixed.body.warnings).toEqual([]);
    const read = await call("GET", `/designs/${designId}/draft`, writer);
    expect(read.body.draft.einvoiceMapping).toBe(MAPPING);
    expect(read.body.draft.einvoice).toEqual({ format: "zugferd", data: "einvoice.liquid" });
    const published = await call("POST", `/designs/${designId}/versions`, writer, { from: "draft" });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    expect(published.body.version).toBe(3);
  });
});

describe("previewing an e-invoice design", () => {
  it("renders the mapping from the sampleParams as given, keys outside the parameters included", async () => {
    const preview = await call("POST", "/designs/preview", writer, { designId, version: 1 });
    expect(preview.status, preview.bytes.toString("utf8", 0, 300)).toBe(200);
    expect(preview.bytes.subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("answers an invoice that breaks a rule with 422 EINVOICE_INVALID, each rule a problem of einvoice.liquid", async () => {
    const { number, buyer, ...rest } = baseInvoice();
    const { name: _name, ...nameless } = rest.seller!;
    const params = { number, buyer, rest: { ...rest, seller: nameless } };
    const preview = await call("POST", "/designs/preview", writer, { designId, version: 1, params });
    expect(preview.status).toBe(422);
    const body = JSON.parse(preview.bytes.toString("utf8")) as { code: string; details: Record<string, string>[] };
    expect(body.code).toBe("EINVOICE_INVALID");
    expect(body.details).toContainEqual(
      expect.objectContaining({ file: "einvoice.liquid", field: "seller.name", code: "BR-06" }),
    );
  });
});

describe("generating from a PDF/A design", () => {
  it("refuses content.protection with 400 VALIDATION_FAILED naming it, and prints without it", async () => {
    const sync = syncCaller(stack, tenant.appKey);
    const { number, buyer, ...rest } = baseInvoice();
    const content = { fileName: "invoice-42", params: { number, buyer, rest } };
    const protectedRes = await sync("single", {
      designId,
      version: 1,
      content: { ...content, protection: { password: "secret" } },
    });
    expect(protectedRes.status).toBe(400);
    const body = (await protectedRes.json()) as { code: string; details: { field: string }[] };
    expect(body.code).toBe("VALIDATION_FAILED");
    expect(body.details).toEqual([expect.objectContaining({ field: "content.protection" })]);

    const printed = await sync("single", { designId, version: 1, content });
    expect(printed.status).toBe(200);
    expect(
      Buffer.from(await printed.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
  });
});
