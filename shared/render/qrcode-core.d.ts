/**
 * The part of the `qrcode` package the barcode filter uses: its encoder core, without the package's
 * renderers (PNG, terminal) and CLI, which its main entry loads. The package ships no types.
 */
declare module "qrcode/lib/core/qrcode.js" {
  export interface QrSymbol {
    /** The symbol's modules, row by row: 1 dark, 0 light. */
    modules: { size: number; data: Uint8Array };
    version: number;
  }
  export function create(data: string, options: { errorCorrectionLevel: "L" | "M" | "Q" | "H" }): QrSymbol;
}
