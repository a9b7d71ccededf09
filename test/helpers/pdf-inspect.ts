import { PDFDocument } from "@cantoo/pdf-lib";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { readSearchMetadata } from "#shared/render/pdf-postprocess.ts";

/** What the HTTP tests check on a generated PDF, read with pdf-lib (a second, independent parser). */
export interface PdfFacts {
  pageCount: number;
  title: string | undefined;
  /**
   * `rf:params` decoded (see shared/render/README.md#pdf-post-processing-and-rfparams), or undefined when the
   * PDF carries none.
   */
  searchMetadata: Record<string, string> | undefined;
}

/** Parses the bytes as a PDF (throws if they are not one) and reads page count, Title and `rf:params`. */
export async function inspectPdf(bytes: Uint8Array): Promise<PdfFacts> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  return { pageCount: doc.getPageCount(), title: doc.getTitle(), searchMetadata: await readSearchMetadata(bytes) };
}

/** Text of each page as pdf.js extracts it (what copy/paste and search see). */
export async function extractPdfText(bytes: Uint8Array): Promise<string[]> {
  const doc = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      pages.push(content.items.map((item) => ("str" in item ? item.str : "")).join(""));
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

/** All pages' text with whitespace removed, so CJK runs split by layout still match. */
export async function compactPdfText(bytes: Uint8Array): Promise<string> {
  return (await extractPdfText(bytes)).join("").replace(/\s+/g, "");
}
