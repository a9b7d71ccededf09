import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { baseInvoice } from "../helpers/einvoice-model-fixtures.ts";

/**
 * A thumbnail of an e-invoice design shows what its documents print: the invoice its sample params make,
 * `einvoice` included. Params that make no valid invoice, or a mapping that does not parse, still get a picture:
 * publishing reports both itself (shared/authoring/einvoice-rules.ts), with the line or the rule.
 */
let renderer: Renderer;
beforeAll(() => {
  renderer = createRenderer({ browsers: 1 });
});
afterAll(async () => {
  await renderer?.close();
});

const design = (mapping: string): DesignBundle => ({
  manifest: designManifestSchema.parse({
    label: "E-invoice thumbnail",
    parameters: [],
    einvoice: { format: "factur-x", data: "einvoice.liquid" },
  }),
  // A block as wide as the total's digits: the picture changes with the invoice.
  template:
    '<div style="height:200px;background:#000;width:{{ einvoice.totals.grandTotal | default: 0 | times: 4 }}px"></div>',
  css: "",
  assets: {},
  einvoiceMapping: mapping,
});

describe("thumbnails of e-invoice designs", () => {
  it("render the template with the computed invoice, and without it when the params make none", async () => {
    const bundle = design("{{ invoice | json }}");
    const withInvoice = await renderer.renderThumbnail({
      bundle,
      bundleKey: "thumb-a@1",
      params: { invoice: baseInvoice() },
    });
    const without = await renderer.renderThumbnail({ bundle, bundleKey: "thumb-a@1", params: {} });
    expect(withInvoice.subarray(0, 8).toString("latin1")).toBe("\x89PNG\r\n\x1a\n");
    expect(without.subarray(0, 8).toString("latin1")).toBe("\x89PNG\r\n\x1a\n");
    expect(withInvoice.equals(without)).toBe(false);
  });

  it("fall back to the plain template for a mapping that does not parse", async () => {
    const bundle = design("{% if %}");
    await expect(renderer.renderThumbnail({ bundle, bundleKey: "thumb-b@1", params: {} })).resolves.toBeInstanceOf(
      Buffer,
    );
  });
});
