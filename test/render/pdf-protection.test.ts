import { PDFBool, PDFDict, PDFDocument, PDFName } from "@cantoo/pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { protectionSchema } from "#shared/generation/requests/request-schema.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { decrypt, opens, pdfInfo, pdfText, showEncryption } from "../helpers/pdf-tools.ts";
import { makeBundle } from "./render-fixtures.ts";

/**
 * A content item's `protection`: the renderer's PDF encrypted with AES-256 (revision 6), read
 * back with qpdf and poppler, which share no code with the library that wrote it.
 */
let renderer: Renderer;
beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 30_000 });
});
afterAll(() => renderer.close());

const template = `<h1>請求書</h1><p>株式会社サンプル 御中</p><h2>明細</h2><table><tr><th>品名</th></tr><tr><td>保守 日月金</td></tr></table>
<img alt="社印" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><p style="break-before: page">二頁目</p>`;
const bundle = makeBundle(template);
const PASSWORD = "開けゴマ-42";
const OWNER = "owner-Σ-secret";

const render = (protection?: Record<string, unknown>, b = bundle) =>
  renderer.renderPdf({
    bundle: b,
    bundleKey: `protect-${b.manifest.pdf.tagged}`,
    params: {},
    title: "請求書-0042",
    ...(protection && { protection: protectionSchema.parse(protection) }),
  });

describe("password protection (protection)", () => {
  it("encrypts with AES-256 revision 6: no open without the password, the same pages and text with it", async () => {
    const plain = await render();
    const locked = await render({ password: PASSWORD, ownerPassword: OWNER });
    expect(locked.pageCount).toBe(2);
    const enc = showEncryption(locked.pdf);
    expect(enc.R).toBe("6");
    expect(enc["stream encryption method"]).toBe("AESv3");
    expect(enc["string encryption method"]).toBe("AESv3");
    expect(enc["file encryption method"]).toBe("AESv3");
    expect(opens(locked.pdf)).toBe(false);
    expect(opens(locked.pdf, "wrong")).toBe(false);
    expect(opens(locked.pdf, PASSWORD)).toBe(true);
    expect(showEncryption(locked.pdf, OWNER)["Supplied password is owner password"]).toBeDefined();
    expect(pdfInfo(locked.pdf, PASSWORD).Pages).toBe(pdfInfo(plain.pdf).Pages);
    expect(pdfText(locked.pdf, PASSWORD)).toBe(pdfText(plain.pdf));
    expect(pdfText(locked.pdf, PASSWORD)).toContain("日月金");
    // Strings are encrypted too: the Title decrypts to itself, not to noise.
    expect(pdfInfo(locked.pdf, PASSWORD).Title).toBe("請求書-0042");
    // Nothing of the document is readable in the file's bytes.
    expect(locked.pdf.includes(Buffer.from("FEFF8ACB6C42", "latin1"))).toBe(false);
  });

  it("permissions read back as set; a file without a password opens freely and keeps them", async () => {
    const { pdf } = await render({ allowPrinting: false, allowCopying: true, allowModifying: false });
    expect(opens(pdf)).toBe(true);
    const enc = showEncryption(pdf);
    expect(enc.R).toBe("6");
    expect(enc["User password"]).toBe("");
    expect(enc["print high resolution"]).toBe("not allowed");
    expect(enc["print low resolution"]).toBe("not allowed");
    expect(enc["extract for any purpose"]).toBe("allowed");
    expect(enc["extract for accessibility"]).toBe("allowed");
    expect(enc["modify other"]).toBe("not allowed");
    expect(enc["modify annotations"]).toBe("not allowed");
    expect(enc["modify forms"]).toBe("not allowed");
    expect(enc["modify document assembly"]).toBe("not allowed");
    expect(pdfText(pdf)).toContain("株式会社サンプル");
  });

  it("permissions default to allowed; copying alone can be withheld", async () => {
    const open = showEncryption((await render({ password: PASSWORD })).pdf, PASSWORD);
    for (const key of ["print high resolution", "extract for any purpose", "modify other", "modify annotations"]) {
      expect(open[key], key).toBe("allowed");
    }
    const noCopy = showEncryption((await render({ allowCopying: false })).pdf);
    expect(noCopy["extract for any purpose"]).toBe("not allowed");
    expect(noCopy["extract for accessibility"]).toBe("allowed");
    expect(noCopy["print high resolution"]).toBe("allowed");
  });

  it("keeps a tagged design's structure tree, /MarkInfo /Marked true, /Lang and outline through encryption", async () => {
    const tagged = {
      ...bundle,
      manifest: designManifestSchema.parse({
        label: "t",
        parameters: [],
        lang: "ja",
        pdf: { tagged: true, outline: true },
      }),
    };
    const { pdf } = await render({ password: PASSWORD }, tagged);
    const doc = await PDFDocument.load(decrypt(pdf, PASSWORD), { updateMetadata: false });
    expect(doc.catalog.lookupMaybe(PDFName.of("StructTreeRoot"), PDFDict)).toBeDefined();
    const markInfo = doc.catalog.lookupMaybe(PDFName.of("MarkInfo"), PDFDict);
    expect(markInfo?.lookup(PDFName.of("Marked"))).toBe(PDFBool.True);
    expect(String(doc.catalog.lookup(PDFName.of("Lang")))).toBe("(ja)");
    expect(doc.catalog.lookupMaybe(PDFName.of("Outlines"), PDFDict)).toBeDefined();
    expect(pdfInfo(pdf, PASSWORD).Tagged).toBe("yes");
  });
});
