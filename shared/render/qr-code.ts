import { create } from "qrcode/lib/core/qrcode.js";

/** Error-correction levels (ISO/IEC 18004): about 7, 15, 25 and 30 % of the symbol may be lost. */
export type QrLevel = "L" | "M" | "Q" | "H";

/**
 * A QR code as SVG, one viewBox unit per module, the quiet zone included: encoded by the `qrcode`
 * package (its core only), the dark modules drawn as one path of horizontal runs. The barcode filter
 * gives it its physical size (barcode.ts). `qrcode` rather than bwip-js for the code on most invoices:
 * ~1 ms warm against ~8, and a cold sync request of an invoice with one spends ~60 ms less CPU.
 * @throws Error when the value does not fit the largest symbol at that level.
 */
export function qrSvg(text: string, level: QrLevel, quiet: number): string {
  const { size, data } = create(text, { errorCorrectionLevel: level }).modules;
  let path = "";
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; ) {
      if (!data[y * size + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < size && data[y * size + x]) x++;
      path += `M${start + quiet} ${y + quiet}h${x - start}v1h${start - x}z`;
    }
  }
  const side = size + 2 * quiet;
  return `<svg viewBox="0 0 ${side} ${side}" xmlns="http://www.w3.org/2000/svg"><path d="${path}"/></svg>`;
}
