import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleZip, rawFromFiles, rawFromJsonForm, rawFromZip, toJsonForm } from "#shared/authoring/bundle-codec.ts";
import { BundleInvalid, checkBundle, strictBundle } from "#shared/authoring/bundle-rules.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { bundleSha256 } from "#shared/designs/bundle-hash.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { bundleToStored, storedToBundle } from "#shared/designs/design-store.ts";
import { baseInvoice, invoiceWith } from "../helpers/einvoice-model-fixtures.ts";

/**
 * A bundle's einvoice.liquid (DesignBundle.einvoiceMapping) through every form of a bundle (zip, JSON
 * form, folder, stored object, hash), and the publish checks of an e-invoice design
 * (shared/authoring/README.md#e-invoices): the pairing with design.json, the mapping's syntax, its
 * output with the sampleParams, and the invoice's rules.
 */

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A bundle without a mapping, as designs were before e-invoices. */
const plainForm = {
  label: "Hash pin",
  parameters: [{ name: "title", type: "text", label: "Title" }],
  pdf: { tagged: true },
  sampleParams: { title: "Sample" },
  template: "<h1>{{ title }}</h1>",
  style: "h1 { color: red; }",
  assets: { "logo.png": PNG },
};
/** Its content hash, computed by the code before e-invoices existed: it must never change. */
const PLAIN_SHA256 = "a4e5234f055d574d6b8fd62ec8e46947b20169413ff8e874ca7ca1cc3e46c0f1";

/** The mapping of the tests: the model comes whole in the `invoice` param. */
const MAPPING = "{{ invoice | json }}\n";

/** An e-invoice design in the JSON form; `extra` overrides its fields. */
const invoiceForm = (extra: Record<string, unknown> = {}) => ({
  label: "Invoice",
  parameters: [{ name: "customer", type: "text", label: "Customer" }],
  einvoice: { format: "factur-x", data: "einvoice.liquid" },
  sampleParams: { customer: "Acheteur SAS", invoice: baseInvoice() },
  template: "<h1>Invoice {{ einvoice.number }} for {{ customer }}</h1>",
  einvoiceMapping: MAPPING,
  ...extra,
});

/** The BundleInvalid `make` throws (failing the test when it throws nothing or something else). */
function invalidFrom(make: () => unknown): BundleInvalid {
  try {
    make();
  } catch (err) {
    expect(err).toBeInstanceOf(BundleInvalid);
    const invalid = err as BundleInvalid;
    expect([invalid.code, invalid.status]).toEqual(["DESIGN_BUNDLE_INVALID", 422]);
    return invalid;
  }
  throw new Error("the bundle was accepted");
}

/** The 422 a bundle is refused with: its details as the API answers them. */
const refusal = (form: Record<string, unknown>) => invalidFrom(() => strictBundle(rawFromJsonForm(form))).details;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "platen-einvoice-bundle-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("einvoice.liquid in every form of a bundle", () => {
  it("keeps an old bundle's hash, and its forms carry no mapping", async () => {
    const bundle = strictBundle(rawFromJsonForm(plainForm));
    expect(bundleSha256(bundle)).toBe(PLAIN_SHA256);
    expect("einvoiceMapping" in bundle).toBe(false);
    const zip = await JSZip.loadAsync(await bundleZip(bundle));
    expect(Object.keys(zip.files).sort()).toEqual(["assets/logo.png", "design.json", "style.css", "template.liquid"]);
    expect("einvoiceMapping" in toJsonForm(bundle)).toBe(false);
    const again = strictBundle(await rawFromZip(await bundleZip(bundle)));
    expect(bundleSha256(again)).toBe(PLAIN_SHA256);
  });

  it("a zip round trip keeps the mapping byte for byte, and the hash", async () => {
    const bundle = strictBundle(rawFromJsonForm(invoiceForm()));
    expect(bundle.einvoiceMapping).toBe(MAPPING);
    const zipped = await bundleZip(bundle);
    const zip = await JSZip.loadAsync(zipped);
    expect(await zip.file("einvoice.liquid")!.async("string")).toBe(MAPPING);
    const again = strictBundle(await rawFromZip(zipped));
    expect(again).toEqual(bundle);
    expect(bundleSha256(again)).toBe(bundleSha256(bundle));
    // Zipping the same bundle again gives the same bytes.
    expect((await bundleZip(again)).equals(zipped)).toBe(true);
  });

  it("the hash covers the mapping: a changed mapping is another version, the same files the same hash", () => {
    const one = strictBundle(rawFromJsonForm(invoiceForm()));
    const same = strictBundle(rawFromJsonForm(invoiceForm()));
    const other = strictBundle(rawFromJsonForm(invoiceForm({ einvoiceMapping: `${MAPPING}\n` })));
    expect(bundleSha256(same)).toBe(bundleSha256(one));
    expect(bundleSha256(other)).not.toBe(bundleSha256(one));
  });

  it("the JSON form takes it as einvoiceMapping and gives it back (drafts, GET …/draft)", () => {
    const form = invoiceForm();
    const raw = rawFromJsonForm(form);
    expect(raw.einvoiceMapping).toBe(MAPPING);
    const back = toJsonForm({ ...raw, manifest: raw.manifest as Record<string, unknown> });
    expect(back.einvoiceMapping).toBe(MAPPING);
    expect(back.einvoice).toEqual(form.einvoice);
    // A draft is stored as the stored form of its JSON form, and read back the same way.
    const stored = JSON.parse(JSON.stringify(bundleToStored({ ...raw, manifest: raw.manifest as never })));
    const draft = storedToBundle(stored);
    expect(draft.einvoiceMapping).toBe(MAPPING);
    expect(toJsonForm({ ...draft, manifest: stored.manifest })).toEqual(back);
  });

  it("refuses a mapping that is not text in the JSON form, naming einvoice.liquid and the field", () => {
    for (const einvoiceMapping of [42, { a: 1 }, null])
      expect(invalidFrom(() => rawFromJsonForm(invoiceForm({ einvoiceMapping }))).details).toEqual([
        expect.objectContaining({ file: "einvoice.liquid", field: "einvoiceMapping" }),
      ]);
  });

  it("the stored form keeps the mapping, and a stored bundle without one loads without one", () => {
    const bundle = strictBundle(rawFromJsonForm(invoiceForm()));
    const stored = JSON.parse(JSON.stringify(bundleToStored(bundle)));
    expect(stored.einvoiceMapping).toBe(MAPPING);
    expect(storedToBundle(stored)).toEqual(bundle);

    const old = JSON.parse(JSON.stringify(bundleToStored(strictBundle(rawFromJsonForm(plainForm)))));
    expect(Object.keys(old).sort()).toEqual(["assets", "css", "manifest", "template"]);
    const loaded = storedToBundle(old);
    expect("einvoiceMapping" in loaded).toBe(false);
    expect(bundleSha256(loaded)).toBe(PLAIN_SHA256);
  });

  it("the folder loader reads einvoice.liquid; any other extra file is refused with the list of allowed names", async () => {
    const dir = join(root, "invoice");
    await mkdir(dir, { recursive: true });
    const { template, einvoiceMapping, ...manifest } = invoiceForm();
    await writeFile(join(dir, "design.json"), JSON.stringify(manifest, null, 2));
    await writeFile(join(dir, "template.liquid"), template);
    await writeFile(join(dir, "einvoice.liquid"), einvoiceMapping);
    const bundle = await loadBundleFromDir(dir);
    expect(bundle.einvoiceMapping).toBe(MAPPING);
    expect(bundle.manifest.pdf.standard).toBe("PDF/A-3b");

    const files = new Map([
      ["design.json", Buffer.from(JSON.stringify(manifest))],
      ["template.liquid", Buffer.from(template)],
      ["mapping.liquid", Buffer.from(MAPPING)],
    ]);
    const refused = invalidFrom(() => rawFromFiles(files));
    expect(refused.details).toEqual([
      expect.objectContaining({
        file: "mapping.liquid",
        text: expect.objectContaining({
          en: "only design.json, template.liquid, style.css, einvoice.liquid and assets/… belong in a bundle",
        }),
      }),
    ]);
    expect(detailMessage(refused.details[0]!, "ja")).toContain("einvoice.liquid");
  });
});

describe("publish checks of an e-invoice design", () => {
  it("accepts a design whose sample invoice passes every rule", () => {
    const { bundle, problems } = checkBundle(rawFromJsonForm(invoiceForm()));
    expect(problems).toEqual([]);
    expect(bundle?.manifest.einvoice).toEqual({ format: "factur-x", data: "einvoice.liquid" });
  });

  it("refuses einvoice without einvoice.liquid, and einvoice.liquid without einvoice", () => {
    const { einvoiceMapping: _, ...noMapping } = invoiceForm();
    expect(refusal(noMapping)).toEqual([
      expect.objectContaining({
        file: "design.json",
        field: "einvoice",
        text: expect.objectContaining({ en: expect.stringContaining("einvoice.liquid") }),
      }),
    ]);
    const { einvoice: __, ...noDeclaration } = invoiceForm();
    const [orphan, ...rest] = refusal(noDeclaration);
    expect(rest).toEqual([]);
    expect(orphan).toMatchObject({ file: "einvoice.liquid" });
    expect(detailMessage(orphan!, "en")).toContain("design.json has no einvoice");
    expect(detailMessage(orphan!, "ja")).toContain("einvoice");
  });

  it("refuses a mapping that is not Liquid, at its line and column (the renderer's engine: unknown filters too)", () => {
    const details = refusal(invoiceForm({ einvoiceMapping: '{\n  "number": {{ number | json }},\n  {% if x %}\n}' }));
    expect(details).toEqual([
      expect.objectContaining({
        file: "einvoice.liquid",
        line: 3,
        column: 3,
        text: expect.objectContaining({ en: "tag {% if x %} not closed" }),
      }),
    ]);
    expect(detailMessage(details[0]!, "ja")).toContain("Liquid");
    const filter = refusal(invoiceForm({ einvoiceMapping: "{{ invoice | to_json }}" }));
    expect(filter).toEqual([expect.objectContaining({ file: "einvoice.liquid", line: 1, column: 1 })]);
    expect(detailMessage(filter[0]!, "en")).toContain("to_json");
  });

  it("refuses a mapping whose output with the sampleParams is not JSON, naming where the output stops being JSON", () => {
    const details = refusal(invoiceForm({ einvoiceMapping: '{\n  "number": {{ invoice.number }}\n}' }));
    expect(details).toHaveLength(1);
    expect(details[0]).toMatchObject({ file: "einvoice.liquid", code: "TEMPLATE_FAILED" });
    // The output is `{\n  "number": RE-2025-0042\n}`: JSON stops at the R, line 2, column 13 of the output.
    expect(detailMessage(details[0]!, "en")).toContain("not JSON at line 2, column 13 of the output");
    expect(detailMessage(details[0]!, "en")).toContain("| json");
    expect(detailMessage(details[0]!, "ja")).toContain("2 行 13 列目");
  });

  it("turns each rule the sample invoice breaks into a detail: the model path, the rule, en and ja (BR-06)", () => {
    const broken = invoiceWith((i) => {
      delete i.seller!.name;
    });
    const details = refusal(invoiceForm({ sampleParams: { customer: "Acheteur SAS", invoice: broken } }));
    expect(details).toEqual([
      {
        file: "einvoice.liquid",
        field: "seller.name",
        code: "BR-06",
        text: {
          en: "the sample invoice (sampleParams) breaks BR-06: The seller's name (BT-27) is required.",
          ja: expect.stringContaining("BR-06"),
        },
      },
    ]);
    expect(detailMessage(details[0]!, "ja")).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
  });

  it("checks the format's own rules (XRechnung's BR-DE-15) and reads the model's shape errors as MODEL", () => {
    const noReference = invoiceWith((i) => {
      delete i.buyerReference;
    });
    const xrechnung = { einvoice: { format: "xrechnung", data: "einvoice.liquid" } };
    const details = refusal(invoiceForm({ ...xrechnung, sampleParams: { invoice: noReference } }));
    expect(details.map((d) => [d.field, d.code])).toEqual([["buyerReference", "BR-DE-15"]]);
    // The same invoice is a valid Factur-X: the rule belongs to XRechnung.
    expect(checkBundle(rawFromJsonForm(invoiceForm({ sampleParams: { invoice: noReference } }))).problems).toEqual([]);
    const shape = refusal(invoiceForm({ sampleParams: { invoice: { ...baseInvoice(), colour: "red" } } }));
    expect(shape).toEqual([expect.objectContaining({ file: "einvoice.liquid", field: "colour", code: "MODEL" })]);
  });

  it("checks nothing of the invoice without sampleParams, or when they do not fit the parameters", () => {
    expect(checkBundle(rawFromJsonForm(invoiceForm({ sampleParams: undefined }))).problems).toEqual([]);
    const misfit = refusal(invoiceForm({ sampleParams: { customer: 42, invoice: {} } }));
    expect(misfit.map((d) => [d.file, d.field])).toEqual([["design.json", "sampleParams.customer"]]);
  });

  it("a draft gets the same problems as warnings, and keeps its mapping", () => {
    const raw = rawFromJsonForm(invoiceForm({ einvoiceMapping: "{% if %}" }));
    const { bundle, problems } = checkBundle(raw);
    expect(problems).toEqual([expect.objectContaining({ file: "einvoice.liquid", line: 1 })]);
    expect(bundle?.einvoiceMapping).toBe("{% if %}");
  });
});
