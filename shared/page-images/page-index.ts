/**
 * What a page view needs to know of a PDF before any page is drawn: how many pages, how large
 * each is on screen (so `<img>` carries its width and height and the page does not jump), and
 * whether it is encrypted (then nothing is drawn: shared/page-images/README.md#protected-pdfs).
 */
export interface PageIndex {
  encrypted: boolean;
  /** Each page's visible size in PDF points, rotation applied (as pdf.js shows it). */
  pages: { width: number; height: number }[];
}

/**
 * Reads the page boxes with pdf-lib (no browser). An encrypted file is only marked: its page
 * boxes are in clear, but nothing of it is drawn. pdf-lib is loaded on the first call, so a
 * page that never needs an index never evaluates it.
 */
export async function readPageIndex(pdf: Uint8Array): Promise<PageIndex> {
  const { PDFDocument } = await import("@cantoo/pdf-lib");
  const doc = await PDFDocument.load(pdf, { ignoreEncryption: true, updateMetadata: false });
  if (doc.isEncrypted) return { encrypted: true, pages: [] };
  const pages = doc.getPages().map((page) => {
    const box = page.getCropBox();
    const turned = page.getRotation().angle % 180 !== 0;
    return turned ? { width: box.height, height: box.width } : { width: box.width, height: box.height };
  });
  return { encrypted: false, pages };
}

/** An index as stored next to the images; undefined for text that is not one (then it is read again). */
export function parsePageIndex(text: string): PageIndex | undefined {
  try {
    const value = JSON.parse(text) as Partial<PageIndex>;
    if (typeof value.encrypted !== "boolean" || !Array.isArray(value.pages)) return undefined;
    const sized = value.pages.every((p) => Number(p?.width) > 0 && Number(p?.height) > 0);
    return sized ? { encrypted: value.encrypted, pages: value.pages } : undefined;
  } catch {
    return undefined;
  }
}
