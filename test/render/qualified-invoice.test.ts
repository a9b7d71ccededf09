import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { extractPageTexts } from "./render-fixtures.ts";

/**
 * The sample qualified invoice (適格請求書) as a PDF: 25 lines at 10 % and 8 %, priced so
 * that rounding the tax per line would give other totals than rounding once per rate. The
 * extracted text must show the per-rate totals, the ※ marks with their legend and the
 * registration number.
 */
let renderer: Renderer;
beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 30_000 });
});
afterAll(() => renderer.close());

const yen = (n: number) => `¥${n.toLocaleString("en-US")}`;

describe("the qualified-invoice sample", () => {
  it("shows totals per rate with the tax rounded once per rate, for 25 lines at both rates", async () => {
    const bundle = await loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja"));
    const lines = Array.from({ length: 25 }, (_, i) => ({
      品名: `品目${i + 1}`,
      数量: (i % 3) + 1,
      単価: 119 + i * 7, // odd amounts: each line's tax has a fraction
      税率: i % 2 ? 8 : 10,
    }));
    // Independent arithmetic: line = qty × price (whole yen here); tax = floor(sum × rate / 100) per rate.
    const base = (rate: number) => lines.filter((l) => l.税率 === rate).reduce((s, l) => s + l.数量 * l.単価, 0);
    const [base10, base8] = [base(10), base(8)];
    const [tax10, tax8] = [Math.floor(base10 / 10), Math.floor((base8 * 8) / 100)];
    const perLine = lines.reduce((s, l) => s + Math.floor((l.数量 * l.単価 * l.税率) / 100), 0);
    expect(perLine, "the case must tell per-line rounding apart").not.toBe(tax10 + tax8);

    const { pdf } = await renderer.renderPdf({
      bundle,
      bundleKey: "invoice-ja@test",
      params: {
        発行元: { 会社名: "株式会社プラテン印刷", 登録番号: "T9234567890123" },
        請求先: "株式会社サンプル商事",
        請求番号: "INV-25",
        発行日: "2026-11-25",
        明細: lines,
      },
      title: "invoice",
    });
    // pdf.js puts spaces between table cells: compare without any white space.
    const text = (await extractPageTexts(pdf)).join("").replace(/\s+/g, "");
    expect(text).toContain(`10%対象${yen(base10)}${yen(tax10)}`);
    expect(text).toContain(`8%対象※${yen(base8)}${yen(tax8)}`);
    expect(text).toContain(`合計（税込）${yen(base10 + base8 + tax10 + tax8)}`);
    expect(text).toContain(`消費税${yen(tax10 + tax8)}`);
    expect(text).toContain("※は軽減税率（8%）対象品目です。");
    expect(text.match(/品目\d+※/g)).toHaveLength(12); // every 8 % line carries the mark
    expect(text).toContain("登録番号T9234567890123");
  });

  it("refuses a registration number whose check digit is wrong (TEMPLATE_FAILED naming it)", async () => {
    const bundle = await loadBundleFromDir(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja"));
    await expect(
      renderer.renderPdf({
        bundle,
        bundleKey: "invoice-ja@test",
        params: { 発行元: { 登録番号: "T1234567890123" }, 明細: [] },
        title: "invoice",
      }),
    ).rejects.toMatchObject({ code: "TEMPLATE_FAILED", message: expect.stringContaining('"T1234567890123"') });
  });
});
