import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Liquid } from "liquidjs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DesignManifest, designManifestSchema, type ParameterSpec } from "#shared/designs/bundle-schema.ts";
import { loadBarcodeEncoder } from "#shared/render/barcode.ts";
import { createTemplateEngine } from "#shared/render/template.ts";
import type { TemplateFile } from "#shared/render/template-file.ts";

const samplesDir = fileURLToPath(new URL("../../shared/designs/samples/", import.meta.url));
const sampleNames = readdirSync(samplesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** Same options the renderer uses. */
function newEngine(): Liquid {
  // The renderer's own engine: escaped output, strict filters, Platen's filters (delimit).
  return createTemplateEngine();
}

function loadSample(name: string): { manifest: DesignManifest; template: string; css: string; dir: string } {
  const dir = join(samplesDir, name);
  const manifest = designManifestSchema.parse(JSON.parse(readFileSync(join(dir, "design.json"), "utf8")));
  return {
    manifest,
    template: readFileSync(join(dir, "template.liquid"), "utf8"),
    css: readFileSync(join(dir, "style.css"), "utf8"),
    dir,
  };
}

/** The generated file as the renderer hands it to every template (shared/render/README.md#what-a-template-sees). */
const FILE: TemplateFile = {
  id: "QrStUvWxYz012345",
  name: "sample",
  share: { url: "https://platen.example/file/AbCdEfGhIjKlMnOp/QrStUvWxYz012345" },
  preview: false,
};

// The shipping label's barcodes come from its params: the encoder must be there, as renderHtml ensures.
beforeAll(() => loadBarcodeEncoder());

async function render(name: string, params: Record<string, unknown>, file: TemplateFile = FILE): Promise<string> {
  const { template } = loadSample(name);
  return newEngine().parseAndRender(template, params, { globals: { file } });
}

/** The accessible label of each barcode the HTML holds: the value it encodes. */
const barcodeValues = (html: string) =>
  [...html.matchAll(/<svg [^>]*role="img" aria-label="([^"]*)"/g)].map((m) => m[1]!.replaceAll("&#38;", "&"));

/** Checks a params object against the parameter schema (types, declared names, row/collection shape). */
function paramProblems(specs: ParameterSpec[], params: Record<string, unknown>, path = ""): string[] {
  const problems: string[] = [];
  const byName = new Map(specs.map((s) => [s.name, s]));
  for (const [key, value] of Object.entries(params)) {
    const spec = byName.get(key);
    const where = `${path}${key}`;
    if (!spec) {
      problems.push(`${where}: not declared`);
      continue;
    }
    const isRecord = (v: unknown): v is Record<string, unknown> =>
      typeof v === "object" && v !== null && !Array.isArray(v);
    switch (spec.type) {
      case "text":
        if (typeof value !== "string") problems.push(`${where}: expected text`);
        break;
      case "number":
        if (typeof value !== "number") problems.push(`${where}: expected number`);
        break;
      case "boolean":
        if (typeof value !== "boolean") problems.push(`${where}: expected boolean`);
        break;
      case "date":
        if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(value))
          problems.push(`${where}: expected ISO date`);
        break;
      case "collection":
        if (!isRecord(value)) problems.push(`${where}: expected object`);
        else problems.push(...paramProblems(spec.spec ?? [], value, `${where}.`));
        break;
      case "array":
        if (!Array.isArray(value)) problems.push(`${where}: expected array`);
        else
          value.forEach((row, i) => {
            if (!isRecord(row)) problems.push(`${where}[${i}]: expected object`);
            else problems.push(...paramProblems(spec.spec ?? [], row, `${where}[${i}].`));
          });
        break;
    }
  }
  return problems;
}

describe("sample designs", () => {
  it("finds the five samples", () => {
    expect(sampleNames).toEqual(
      expect.arrayContaining(["certificate-en", "invoice-eu", "invoice-ja", "invoice-ja-einvoice", "shipping-label"]),
    );
  });

  describe.each(sampleNames)("%s", (name) => {
    it("has a valid design.json with sampleParams matching its parameters", () => {
      const { manifest } = loadSample(name);
      expect(manifest.sampleParams).toBeDefined();
      expect(paramProblems(manifest.parameters, manifest.sampleParams ?? {})).toEqual([]);
    });

    it("parses with strict filters: every filter it uses is one the renderer has", () => {
      const { template } = loadSample(name);
      // Strict filters make a parse fail on a filter the engine lacks (what this check relies on).
      expect(() => newEngine().parse("{{ total | no_such_filter }}")).toThrow(/undefined filter: no_such_filter/);
      const parsed = newEngine().parse(template);
      expect(parsed.length).toBeGreaterThan(1);
    });

    it("renders with sampleParams", async () => {
      const { manifest } = loadSample(name);
      const html = await render(name, manifest.sampleParams ?? {});
      expect(html.length).toBeGreaterThan(500);
    });

    it("renders with empty params", async () => {
      const html = await render(name, {});
      expect(html.length).toBeGreaterThan(200);
      expect(html).not.toMatch(/NaN|undefined|\[object Object\]/);
    });

    it("uses no file includes, no raw output, no external resources", () => {
      const { template, css } = loadSample(name);
      expect(template).not.toMatch(/\{%-?\s*(include|render|layout)\b/);
      expect(template).not.toMatch(/\|\s*raw\b/);
      expect(template).not.toMatch(/<script\b/i);
      expect(`${template}\n${css}`).not.toMatch(/https?:\/\//);
      expect(css).not.toMatch(/@import|@font-face/);
    });

    it("only references assets that exist", () => {
      const { template, css, dir } = loadSample(name);
      const refs = [...`${template}\n${css}`.matchAll(/assets\/([\w.-]+)/g)].map((m) => m[1] as string);
      for (const ref of refs) expect(existsSync(join(dir, "assets", ref)), ref).toBe(true);
    });
  });
});

describe("invoice-ja", () => {
  const sample = () => loadSample("invoice-ja").manifest.sampleParams ?? {};
  const itemsBody = (html: string): string => {
    const m = /<table class="items">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html);
    if (!m?.[1]) throw new Error("items tbody not found");
    return m[1];
  };

  it("computes the sample totals (hand-checked)", async () => {
    // 10%: 50,000 + 12.5×8,000 + 12,800 + 3×2,480 = 170,240 → tax 17,024
    //  8%: 15×1,080 + 24×98 = 18,552 → tax floor(1,484.16) = 1,484
    // total: 188,792 + 17,024 + 1,484 = 207,300
    const html = await render("invoice-ja", sample());
    expect(html).toContain('<tr class="grand-total"><th scope="row">合計（税込）</th><td>¥207,300</td></tr>');
    expect(html).toContain("¥207,300<small>-</small>");
    expect(html).toContain("<td>¥170,240</td><td>¥17,024</td>");
    expect(html).toContain("<td>¥18,552</td><td>¥1,484</td>");
    expect(html).toContain("<td>¥188,792</td>");
    expect(html).toContain("<td>¥18,508</td>");
    expect(html).toContain('<td class="col-qty">12.5<span class="unit">時間</span></td>');
    expect(html).toContain("2025年4月30日");
    expect(html).toContain("2025年5月31日");
    expect(html).toContain("登録番号 T9234567890123"); // its check digit holds (registration_number)
  });

  it("carries the file's own share URL in a QR code", async () => {
    const html = await render("invoice-ja", sample());
    expect(barcodeValues(html)).toEqual([FILE.share.url]);
    expect(html).toContain("この請求書をオンラインで確認できます");
  });

  it("renders 400 line items with repeated-header table markup", async () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({ 品名: `部品 ${i + 1}`, 数量: 1, 単価: 100, 税率: 10 }));
    const html = await render("invoice-ja", { ...sample(), 明細: rows });
    const body = itemsBody(html);
    expect(body.match(/<tr[\s>]/g)).toHaveLength(400);
    expect(body).toContain("部品 400");
    // 400 × 100 = 40,000 + 10% = 44,000
    expect(html).toContain("<td>¥44,000</td>");
    const { css } = loadSample("invoice-ja");
    expect(css).toMatch(/thead\s*\{[^}]*display:\s*table-header-group/);
    expect(css).toMatch(/tr\s*\{[^}]*break-inside:\s*avoid/);
  });

  it("escapes parameter values", async () => {
    const html = await render("invoice-ja", { ...sample(), 請求先: "<script>alert(1)</script>" });
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script>");
  });

  it("formats negative, large and fractional numbers and handles 非課税 rows", async () => {
    const html = await render("invoice-ja", {
      明細: [
        { 品名: "本体", 数量: 2, 単価: 1234567.5, 税率: 10 },
        { 品名: "値引き", 数量: 1, 単価: -5000, 税率: 10 },
        { 品名: "印紙代", 数量: 1, 単価: 200, 税率: 0 },
      ],
    });
    expect(html).toContain('<td class="col-price">1,234,567.5</td>');
    expect(html).toContain('<td class="col-amount">2,469,135</td>');
    expect(html).toContain('<td class="col-amount">-5,000</td>');
    // 10%: 2,464,135 → 246,413; 非課税 200; total 2,464,135 + 200 + 246,413 = 2,710,748
    expect(html).toContain("<td>¥2,464,135</td><td>¥246,413</td>");
    expect(html).toContain("非課税・不課税</th><td>¥200</td>");
    expect(html).toContain("<td>¥2,710,748</td>");
  });

  it("shows the reduced-rate note by default and hides it when 軽減税率注記 is false", async () => {
    const params = sample();
    const withDefault = await render("invoice-ja", { ...params, 軽減税率注記: undefined });
    expect(withDefault).toContain("※は軽減税率（8%）対象品目です。");
    const off = await render("invoice-ja", { ...params, 軽減税率注記: false });
    expect(off).not.toContain("軽減税率（8%）対象品目");
    expect(off).not.toContain("reduced-mark");
  });

  describe("dates do not shift with the server time zone", () => {
    const original = process.env.TZ;
    afterEach(() => {
      if (original === undefined) delete process.env.TZ;
      else process.env.TZ = original;
    });

    it("prints the given day in a UTC-8 zone", async () => {
      process.env.TZ = "America/Los_Angeles";
      const html = await render("invoice-ja", sample());
      expect(html).toContain("2025年4月30日");
    });
  });
});

describe("certificate-en", () => {
  it("renders the sample", async () => {
    const html = await render("certificate-en", loadSample("certificate-en").manifest.sampleParams ?? {});
    expect(html).toContain("Alexandra Whitfield");
    expect(html).toContain("March 14, 2025");
    expect(html).toContain("the 36-hour course");
    expect(html).toContain("Dr. Margaret O&#39;Neill");
    expect(html).toContain('src="assets/seal.svg"');
  });

  it("carries its own share URL in a QR code and says that scanning it verifies the certificate", async () => {
    const html = await render("certificate-en", loadSample("certificate-en").manifest.sampleParams ?? {});
    expect(barcodeValues(html)).toEqual([FILE.share.url]);
    expect(html).toContain("Scan the code to verify this certificate");
    expect(html).toContain("PLT-2025-03-00871");
  });

  it("hides the seal when showSeal is false and keeps it when missing", async () => {
    expect(await render("certificate-en", { showSeal: false })).not.toContain("seal.svg");
    expect(await render("certificate-en", {})).toContain("seal.svg");
  });
});

describe("shipping-label", () => {
  const sample = () => loadSample("shipping-label").manifest.sampleParams ?? {};

  it("renders the sample with the fragile banner and contents summary", async () => {
    const html = await render("shipping-label", sample());
    expect(html).toContain("PX 4829 1036 5517 US");
    expect(html).toContain('class="fragile"');
    expect(html).toContain("大阪府大阪市北区梅田3丁目1番1号");
    expect(html).toContain("+ 1 more item");
    expect(html).toContain("<strong>9</strong>"); // 4 + 1 + 2 + 1 + 1 pieces
    expect(html).toContain("2025-06-02");
  });

  it("prints the SSCC as GS1-128 and the Japan Post customer barcode from postal code and address number", async () => {
    // 0 4912345 000001182 4: the check digit 4 is 10 − (Σ digits × 3,1,3,… from the right) mod 10.
    expect(barcodeValues(await render("shipping-label", sample()))).toEqual(["53000013-1-1", "(00)049123450000011824"]);
  });

  it("leaves each barcode out without its data", async () => {
    const { sscc: _sscc, ...rest } = sample();
    const recipient = { ...(sample().recipient as object), addressNumber: undefined };
    expect(barcodeValues(await render("shipping-label", { ...rest, recipient }))).toEqual([]);
  });

  it("refuses an SSCC with a wrong check digit, naming the value and the symbology", async () => {
    await expect(render("shipping-label", { ...sample(), sscc: "049123450000011825" })).rejects.toThrow(
      /barcode "gs1-128" cannot encode "\(00\)049123450000011825"/,
    );
  });

  it("omits the fragile banner unless fragile is true", async () => {
    expect(await render("shipping-label", { ...sample(), fragile: false })).not.toContain('class="fragile"');
    expect(await render("shipping-label", {})).not.toContain('class="fragile"');
  });
});

describe("delimit filter", () => {
  it("groups thousands and keeps signs, fractions and non-numbers", async () => {
    const { delimit } = await import("#shared/render/filters.ts");
    expect([
      delimit(0),
      delimit(999),
      delimit(1000),
      delimit(-3000),
      delimit(1234567.5),
      delimit("12345"),
      delimit("abc"),
      delimit(null),
    ]).toEqual(["0", "999", "1,000", "-3,000", "1,234,567.5", "12,345", "abc", null]);
  });
});

describe("invoice-eu", () => {
  it("makes a valid Factur-X e-invoice of its sample params, and prints the XML's totals", async () => {
    const { prepareDocument } = await import("#shared/render/einvoice-document.ts");
    const { loadBundleFromDir } = await import("#shared/authoring/load-bundle.ts");
    const bundle = await loadBundleFromDir(loadSample("invoice-eu").dir);
    const doc = await prepareDocument(bundle, bundle.manifest.sampleParams ?? {}, { title: "invoice-eu" });
    // 6 × 95 + 249.90 at 19 % (VAT 155.78) and 3 × 18.50 at 7 % (VAT 3.89).
    expect(doc.einvoice?.invoice.totals).toMatchObject({ taxBasis: 875.4, taxTotal: 159.67, duePayable: 1035.07 });
    expect(doc.html).toContain("1,035.07 EUR");
    expect(doc.html).toContain("155.78");
    expect(doc.einvoice?.xml.toString("utf8")).toContain("<ram:DuePayableAmount>1035.07</ram:DuePayableAmount>");
  });
});

describe("amount filter", () => {
  it("prints fixed decimals with thousands separators, and passes non-numbers through", async () => {
    const { amount } = await import("#shared/render/filters.ts");
    expect([
      amount(1234.5, 2),
      amount(30.3),
      amount(115703, 0),
      amount(-0.001, 2),
      amount("12.5", 2),
      amount(-2500, 2),
      amount("abc"),
      amount(1, 9),
    ]).toEqual(["1,234.50", "30.30", "115,703", "0.00", "12.50", "-2,500.00", "abc", 1]);
  });
});
