import {
  PDFDocument,
  type PDFFont,
  PDFName,
  type PDFPage,
  type PDFRef,
  ParseSpeeds,
  StandardFonts,
} from "@cantoo/pdf-lib";

/** The word every preview page carries: real text, so a text search finds it. */
export const PREVIEW_MARK = "PREVIEW";

/** Resource names of the mark on each page; Chromium names its own `/F…`, `/G…`, `/X…`. */
const FONT = "PlatenPreviewFont";
const DIAGONAL = "PlatenPreviewDiagonal";
const EDGE = "PlatenPreviewEdge";
/** The CSS mark's red (200, 30, 30): at 22 % across the page, readable through; at 60 % on the edges. */
const RED = "0.784 0.118 0.118 rg";

/**
 * Stamps the PREVIEW mark onto every page of a printed, post-processed PDF and sets its Title
 * (shared/render/README.md#the-preview-mark): drawn into the file afterwards, on top of the page's content,
 * where no CSS of the design reaches. The page's own content is wrapped in `q … Q`, so no graphics state it
 * leaves (a clip, an opacity, an invisible text mode) applies to the mark. The font is a standard one
 * (Helvetica Bold): nothing to load or embed. Pages of one size share one compressed mark stream, so a page
 * costs a few dictionary entries.
 */
export async function stampPreviewMark(pdf: Uint8Array, title: string): Promise<{ pdf: Buffer; pageCount: number }> {
  // Fastest parse and no object streams, as pdf-rewrite.ts: most of the cost is parsing and writing the file.
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  const { context } = doc;
  const shared = {
    font: font.ref,
    push: context.register(context.stream("q\n")),
    pop: context.register(context.stream("\nQ\n")),
    diagonal: context.register(context.obj({ Type: "ExtGState", ca: 0.22, CA: 0.22 })),
    edge: context.register(context.obj({ Type: "ExtGState", ca: 0.6, CA: 0.6 })),
  };
  const marks = new Map<string, PDFRef>();
  const pages = doc.getPages();
  for (const page of pages) {
    const box = page.getCropBox();
    const key = `${box.x} ${box.y} ${box.width} ${box.height}`;
    let mark = marks.get(key);
    if (!mark) {
      mark = context.register(context.flateStream(markContent(font, box)));
      marks.set(key, mark);
    }
    stampPage(page, mark, shared);
  }
  doc.setTitle(title);
  const bytes = await doc.save({ useObjectStreams: false, objectsPerTick: Number.POSITIVE_INFINITY });
  return { pdf: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), pageCount: pages.length };
}

/** One page: its own content between `q` and `Q`, then the mark, with the mark's resources beside the page's. */
function stampPage(
  page: PDFPage,
  mark: PDFRef,
  shared: { font: PDFRef; push: PDFRef; pop: PDFRef; diagonal: PDFRef; edge: PDFRef },
): void {
  // normalize() gives the page its own Resources (an inherited dictionary is copied) and a Contents array.
  page.node.normalize();
  page.node.wrapContentStreams(shared.push, shared.pop);
  page.node.addContentStream(mark);
  page.node.setFontDictionary(PDFName.of(FONT), shared.font);
  page.node.setExtGState(PDFName.of(DIAGONAL), shared.diagonal);
  page.node.setExtGState(PDFName.of(EDGE), shared.edge);
}

/**
 * The mark of a page of this box: "PREVIEW" along the diagonal, 70 % of its length, centred; and small along the
 * top and bottom edges, so a crop of the middle still says what the page is.
 */
function markContent(font: PDFFont, box: { x: number; y: number; width: number; height: number }): string {
  const { x, y, width, height } = box;
  const angle = Math.atan2(height, width);
  const size = (Math.hypot(width, height) * 0.7) / font.widthOfTextAtSize(PREVIEW_MARK, 1);
  const textWidth = font.widthOfTextAtSize(PREVIEW_MARK, size);
  const capHeight = font.heightAtSize(size, { descender: false });
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  // The start of the baseline, so that the middle of the text's box sits on the page's centre.
  const startX = x + width / 2 - (cos * textWidth) / 2 + (sin * capHeight) / 2;
  const startY = y + height / 2 - (sin * textWidth) / 2 - (cos * capHeight) / 2;
  const edge = Math.max(4, Math.min(width, height) / 40);
  const n = (v: number) => v.toFixed(3);
  const text = (matrix: number[]) => `BT ${matrix.map(n).join(" ")} Tm (${PREVIEW_MARK}) Tj ET`;
  return [
    `q /${DIAGONAL} gs ${RED} /${FONT} 1 Tf`,
    text([cos * size, sin * size, -sin * size, cos * size, startX, startY]),
    `/${EDGE} gs`,
    text([edge, 0, 0, edge, x + edge / 2, y + height - edge * 1.5]),
    text([edge, 0, 0, edge, x + edge / 2, y + edge / 2]),
    "Q",
  ].join("\n");
}
