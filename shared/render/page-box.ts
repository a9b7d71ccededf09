import type { PDFOptions } from "puppeteer-core";
import type { PageSetup } from "#shared/designs/bundle-schema.ts";
import { NAMED_SIZES_MM } from "#shared/designs/page-size.ts";

/** The paper of a design resolved to CSS lengths, portrait/landscape already applied. */
export interface PageBox {
  width: string;
  height: string;
  /** CSS pixels (96 per inch), for the thumbnail viewport. */
  widthPx: number;
  heightPx: number;
  margin: { top: string; right: string; bottom: string; left: string };
}

const PX_PER_UNIT: Record<string, number> = { mm: 96 / 25.4, cm: 96 / 2.54, in: 96, px: 1 };

/** Converts a schema length ("12.5mm", "1in", "300px") to CSS pixels. */
export function lengthToPx(length: string): number {
  const match = /^(\d+(?:\.\d+)?)(mm|cm|in|px)$/.exec(length);
  if (!match) throw new Error(`unsupported length: ${length}`);
  return Number(match[1]) * (PX_PER_UNIT[match[2] as string] ?? 1);
}

/**
 * Explicit width/height win over the named size and are taken literally; orientation
 * turns named sizes only (a custom landscape page is given as width > height).
 */
export function resolvePageBox(page: PageSetup): PageBox {
  let width: string;
  let height: string;
  if (page.width && page.height) {
    width = page.width;
    height = page.height;
  } else {
    const [w, h] = NAMED_SIZES_MM[page.size];
    const landscape = page.orientation === "landscape";
    width = `${landscape ? h : w}mm`;
    height = `${landscape ? w : h}mm`;
  }
  return { width, height, widthPx: lengthToPx(width), heightPx: lengthToPx(height), margin: { ...page.margin } };
}

/** The `@page` rule the renderer appends after the design's CSS, so the manifest decides. */
export function pageCss(box: PageBox): string {
  const { top, right, bottom, left } = box.margin;
  return `@page { size: ${box.width} ${box.height}; margin: ${top} ${right} ${bottom} ${left}; }`;
}

/**
 * A design's `pdf` switches (design.json): tagged structure tree and document outline. Off
 * unless the design asks: tagged + outline make the one-page invoice 37 % larger (the bench's
 * "Document features" table; shared/render/README.md "Tagged PDF and outline").
 */
export interface PdfFeatures {
  tagged: boolean;
  outline: boolean;
}
const NO_FEATURES: PdfFeatures = { tagged: false, outline: false };

/**
 * The same page setup as `pdfOptions`, as DevTools' Page.printToPDF takes it (inches),
 * with the PDF returned in the answer itself: one round trip where `page.pdf` makes four
 * or five (a fonts check, the print, reads of the stream, its close).
 */
export function printToPdfParams(box: PageBox, pdf: PdfFeatures = NO_FEATURES) {
  const inches = (length: string) => lengthToPx(length) / 96;
  return {
    paperWidth: inches(box.width),
    paperHeight: inches(box.height),
    marginTop: inches(box.margin.top),
    marginRight: inches(box.margin.right),
    marginBottom: inches(box.margin.bottom),
    marginLeft: inches(box.margin.left),
    preferCSSPageSize: true,
    printBackground: true,
    generateTaggedPDF: pdf.tagged,
    generateDocumentOutline: pdf.outline,
    transferMode: "ReturnAsBase64" as const,
  };
}

/**
 * page.pdf options matching the @page rule; `preferCSSPageSize` lets a design's own
 * `@page :first` or named pages still take effect.
 */
export function pdfOptions(box: PageBox, timeout: number, pdf: PdfFeatures = NO_FEATURES): PDFOptions {
  return {
    width: box.width,
    height: box.height,
    margin: box.margin,
    preferCSSPageSize: true,
    printBackground: true,
    tagged: pdf.tagged,
    outline: pdf.outline,
    timeout,
  };
}
