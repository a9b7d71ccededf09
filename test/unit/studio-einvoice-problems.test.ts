import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { problemItems } from "../../functions/site/studio/pages/design-draft.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { type PreviewSource, renderPreview } from "#shared/authoring/preview.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { PlatenError, untranslated } from "#shared/errors/platen-error.ts";
import type { Renderer } from "#shared/render/renderer.ts";
import { RenderError } from "#shared/render/render-error.ts";

/**
 * How e-invoice problems reach the studio: the preview's answer to a renderer's EINVOICE_INVALID and
 * TEMPLATE_FAILED (shared/authoring/preview.ts), and the problem list of the page without script.
 */

let bundle: DesignBundle;
beforeAll(async () => {
  bundle = await loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja-einvoice"));
});

/** A renderer whose renderPdf fails as the real one does before taking a browser. */
const failingWith = (error: RenderError) =>
  ({
    renderPdf: async () => {
      throw error;
    },
  }) as unknown as Renderer;

async function previewError(error: RenderError): Promise<PlatenError> {
  const source: PreviewSource = { bundle, bundleKey: "test#1", params: {} };
  const refused = await renderPreview(failingWith(error), source).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(refused).toBeInstanceOf(PlatenError);
  return refused as PlatenError;
}

const violations = [
  {
    path: "seller.name",
    rule: "BR-06",
    message: { en: "The seller's name (BT-27) is required.", ja: "売り手の名称 (BT-27) は必須です。" },
  },
  {
    path: "lines",
    rule: "BR-16",
    message: { en: "An invoice needs at least one line (BG-25).", ja: "明細行が 1 行以上必要です (BG-25)。" },
  },
];

describe("the preview's answer to an invoice that breaks rules", () => {
  it("is 422 EINVOICE_INVALID with one problem of einvoice.liquid per rule: path, rule id, message in each language", async () => {
    const err = await previewError(new RenderError("EINVOICE_INVALID", "2 rules", { violations }));
    expect([err.code, err.status]).toEqual(["EINVOICE_INVALID", 422]);
    const en = buildErrorBody(err, "en", "https://platen.example");
    expect(en.details).toEqual([
      {
        file: "einvoice.liquid",
        field: "seller.name",
        code: "BR-06",
        message: "The seller's name (BT-27) is required.",
      },
      {
        file: "einvoice.liquid",
        field: "lines",
        code: "BR-16",
        message: "An invoice needs at least one line (BG-25).",
      },
    ]);
    const ja = buildErrorBody(err, "ja", "https://platen.example");
    expect(ja.details?.map((d) => d.message)).toEqual([
      "売り手の名称 (BT-27) は必須です。",
      "明細行が 1 行以上必要です (BG-25)。",
    ]);
  });

  it("names einvoice.liquid for a mapping that fails, and template.liquid for the template", async () => {
    const mapping = await previewError(new RenderError("TEMPLATE_FAILED", "einvoice.liquid: output is not JSON"));
    expect(mapping.code).toBe("DESIGN_BUNDLE_INVALID");
    expect(mapping.details).toEqual([expect.objectContaining({ file: "einvoice.liquid", code: "TEMPLATE_FAILED" })]);
    const template = await previewError(new RenderError("TEMPLATE_FAILED", "template error: unknown tag"));
    expect(template.details).toEqual([expect.objectContaining({ file: "template.liquid", code: "TEMPLATE_FAILED" })]);
  });
});

describe("the problem list of the page without script", () => {
  const text = (items: ReturnType<typeof problemItems>) => items.map(String);

  it("puts the rule id first and shows the page's language", () => {
    const problem = {
      file: "einvoice.liquid",
      field: "seller.name",
      code: "BR-06",
      text: { en: "The seller's name (BT-27) is required.", ja: "売り手の名称 (BT-27) は必須です。" },
    };
    expect(text(problemItems("en", [problem]))).toEqual([
      "<li>einvoice.liquid (seller.name): BR-06 The seller&#39;s name (BT-27) is required.</li>",
    ]);
    expect(text(problemItems("ja", [problem]))).toEqual([
      "<li>einvoice.liquid (seller.name): BR-06 売り手の名称 (BT-27) は必須です。</li>",
    ]);
  });

  it("does not repeat a rule the message names, nor prefix codes that are no rule", () => {
    const named = {
      file: "einvoice.liquid",
      field: "seller.name",
      code: "BR-06",
      text: untranslated("the sample invoice breaks BR-06: x"),
    };
    const kind = {
      file: "einvoice.liquid",
      code: "TEMPLATE_FAILED",
      text: untranslated("not JSON"),
      line: 3,
      column: 7,
    };
    expect(text(problemItems("en", [named, kind]))).toEqual([
      "<li>einvoice.liquid (seller.name): the sample invoice breaks BR-06: x</li>",
      "<li>einvoice.liquid, line 3, column 7: not JSON</li>",
    ]);
  });
});
