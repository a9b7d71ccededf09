import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { checkInvoice } from "#shared/einvoice/check.ts";
import { prepareDocument } from "#shared/render/einvoice-document.ts";
import { RenderError } from "#shared/render/render-error.ts";
import { renderEinvoiceMapping } from "#shared/render/template.ts";

// The Japanese invoice with an e-invoice is a variant of its own: invoice-ja stays as it was.
const samples = join(import.meta.dirname, "../../shared/designs/samples");
const dir = join(samples, "invoice-ja-einvoice");
const mapping = readFileSync(join(dir, "einvoice.liquid"), "utf8");
const sampleParams = (): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, "design.json"), "utf8")).sampleParams;

const modelOf = (params: Record<string, unknown>) => JSON.parse(renderEinvoiceMapping(mapping, params, {}));
const rows = (...lines: [string, number, number, number][]) =>
  lines.map(([品名, 数量, 単価, 税率]) => ({ 品名, 数量, 単価, 税率 }));

describe("invoice-ja-einvoice: the mapping", () => {
  it("makes a Factur-X invoice of the sample params that passes every rule, in yen at 10 % and 8 %", () => {
    const result = checkInvoice(modelOf(sampleParams()), "factur-x");
    expect(result.ok ? [] : result.violations).toEqual([]);
    if (!result.ok) return;
    const { invoice } = result;
    expect(invoice.currency).toBe("JPY");
    expect(invoice.minorDigits).toBe(0);
    expect(invoice.seller?.taxRegistrationId).toBe("T9234567890123"); // BT-32: the 登録番号
    expect(invoice.seller?.legalId).toBe("9234567890123"); // BT-30 (BR-CO-26 wants it or a VAT id)
    expect(invoice.seller?.address?.country).toBe("JP");
    expect(invoice.buyer?.address?.country).toBe("JP");
    // 10 %: 50,000 + 12.5 × 8,000 + 12,800 + 3 × 2,480 = 170,240 → 17,024;
    //  8 %: 15 × 1,080 + 24 × 98 = 18,552 → 1,484.16 → 1,484; total 188,792 + 18,508 = 207,300.
    expect(invoice.vatBreakdown.map((r) => [r.category, r.rate, r.taxableAmount, r.taxAmount])).toEqual([
      ["S", 8, 18552, 1484],
      ["S", 10, 170240, 17024],
    ]);
    expect(invoice.totals).toMatchObject({ taxBasis: 188792, taxTotal: 18508, duePayable: 207300 });
    expect(invoice.lines[1]).toMatchObject({ quantity: 12.5, unitCode: "HUR", netAmount: 100000 });
  });

  it("writes 税率 0 as exempt (E) with its reason, and an absent 税率 as 10 %", () => {
    const params = { ...sampleParams(), 明細: [...rows(["印紙代", 1, 200, 0]), { 品名: "保守", 数量: 1, 単価: 1000 }] };
    const result = checkInvoice(modelOf(params), "factur-x");
    expect(result.ok ? [] : result.violations).toEqual([]);
    if (!result.ok) return;
    expect(result.invoice.vatBreakdown.map((r) => [r.category, r.rate, r.taxAmount, r.exemptionReason])).toEqual([
      ["S", 10, 100, undefined],
      ["E", 0, 0, "非課税"],
    ]);
  });

  it("reports what Factur-X needs and the params lack as rules, by model path", () => {
    const { 発行元, ...rest } = sampleParams() as { 発行元: Record<string, unknown> };
    const { 会社名: _name, 法人番号: _legal, ...seller } = 発行元;
    const result = checkInvoice(modelOf({ ...rest, 発行元: seller }), "factur-x");
    expect(result.ok ? [] : result.violations.map((v) => [v.rule, v.path])).toEqual([
      ["BR-06", "seller.name"],
      ["BR-CO-26", "seller.legalId"],
    ]);
  });

  it("still writes JSON without any params: the studio shows the rules, not a parse error", () => {
    const result = checkInvoice(modelOf({}), "factur-x");
    const broken = result.ok ? [] : result.violations.map((v) => v.rule);
    expect(broken).toEqual(expect.arrayContaining(["BR-02", "BR-03", "BR-06", "BR-07", "BR-16"]));
    expect(broken).not.toContain("MODEL");
  });

  it("refuses a 登録番号 with a wrong check digit as TEMPLATE_FAILED naming einvoice.liquid", () => {
    const params = sampleParams() as { 発行元: Record<string, unknown> };
    params.発行元.登録番号 = "T9234567890124";
    let error: unknown;
    try {
      modelOf(params);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RenderError);
    expect((error as RenderError).code).toBe("TEMPLATE_FAILED");
    expect((error as RenderError).message).toMatch(/einvoice\.liquid.*wrong check digit/);
  });
});

describe("invoice-ja-einvoice: the printed invoice", () => {
  it("prints the e-invoice's amounts: the PDF and factur-x.xml say the same", async () => {
    const bundle = await loadBundleFromDir(dir);
    expect(bundle.manifest.einvoice).toEqual({ format: "factur-x", data: "einvoice.liquid" });
    const doc = await prepareDocument(bundle, sampleParams(), { title: "請求書" });
    expect(doc.html).toContain("¥207,300<small>-</small>");
    expect(doc.html).toContain("<td>¥170,240</td><td>¥17,024</td>");
    expect(doc.html).toContain("<td>¥18,552</td><td>¥1,484</td>");
    expect(doc.html).toContain("登録番号 T9234567890123");
    const xml = doc.einvoice?.xml.toString("utf8") ?? "";
    expect(xml).toContain("<ram:DuePayableAmount>207300</ram:DuePayableAmount>");
    expect(xml).toContain('<ram:ID schemeID="FC">T9234567890123</ram:ID>');
  });

  it("rounds the tax once per rate half away from zero, in print as in the XML", async () => {
    // 8 %: 1,085 → 86.8 → 87 (invoice-ja floors it to 86); 10 %: 1,005 → 100.5 → 101.
    const bundle = await loadBundleFromDir(dir);
    const params = { ...sampleParams(), 明細: rows(["弁当", 1, 1085, 8], ["文具", 1, 1005, 10]) };
    const doc = await prepareDocument(bundle, params, { title: "請求書" });
    expect(doc.html).toContain("<td>¥1,005</td><td>¥101</td>");
    expect(doc.html).toContain("<td>¥1,085</td><td>¥87</td>");
    expect(doc.html).toContain('<tr class="grand-total"><th scope="row">合計（税込）</th><td>¥2,278</td></tr>');
    expect(doc.einvoice?.xml.toString("utf8")).toContain("<ram:GrandTotalAmount>2278</ram:GrandTotalAmount>");
  });

  it("leaves invoice-ja as it was: no e-invoice, no mapping", async () => {
    const bundle = await loadBundleFromDir(join(samples, "invoice-ja"));
    expect(bundle.manifest.einvoice).toBeUndefined();
    expect(bundle.einvoiceMapping).toBeUndefined();
  });
});
