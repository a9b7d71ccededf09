import {
  code39,
  code128,
  datamatrix,
  drawingSVG,
  ean8,
  ean13,
  gs1_128,
  itf14,
  japanpost,
  pdf417,
  type RenderOptions,
  rationalizedCodabar,
  upca,
} from "bwip-js/generic";

/**
 * The bwip-js encoders the `barcode` filter offers, imported one by one: bwip-js's `toSVG`
 * looks its encoder up by name among all ~130 symbologies, so a bundle that calls it carries
 * all of them (2.1 MB of BWIPP). Named imports let esbuild keep only these (~0.37 MB), in a
 * chunk of their own that only a template using the filter with another symbology than QR loads
 * (barcode.ts; QR codes are drawn by qr-code.ts).
 */
const ENCODERS: Record<string, typeof code128> = {
  code128,
  "gs1-128": gs1_128,
  ean13,
  ean8,
  upca,
  itf14,
  code39,
  rationalizedCodabar,
  datamatrix,
  pdf417,
  japanpost,
};

/** What bwip-js's `toSVG` draws, for the symbologies above (`options.bcid`). */
export function toSVG(options: RenderOptions): string {
  const encode = ENCODERS[options.bcid];
  if (!encode) throw new Error(`no encoder for "${options.bcid}"`);
  return encode(options, drawingSVG());
}
