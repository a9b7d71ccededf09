import { inflateSync } from "node:zlib";

/** An 8-bit RGB or RGBA PNG's pixels, decoded with zlib alone (the page images are such PNGs). */
export interface Pixels {
  width: number;
  height: number;
  /** Red, green and blue of the pixel at (x, y). */
  rgb(x: number, y: number): [number, number, number];
}

/** Decodes a non-interlaced 8-bit truecolour PNG (colour type 2 or 6), undoing each row's filter. */
export function decodePng(png: Buffer): Pixels {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const [depth, colourType, , , interlace] = png.subarray(24, 29);
  if (depth !== 8 || (colourType !== 2 && colourType !== 6) || interlace !== 0)
    throw new Error(`unsupported PNG: depth ${depth}, colour type ${colourType}, interlace ${interlace}`);
  const channels = colourType === 6 ? 4 : 3;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString("latin1", at + 4, at + 8) === "IDAT") idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[y * stride + i - channels]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + i]! : 0;
      const c = i >= channels && y > 0 ? out[(y - 1) * stride + i - channels]! : 0;
      out[y * stride + i] = (row[i]! + predictor(filter, a, b, c)) & 0xff;
    }
  }
  return {
    width,
    height,
    rgb: (x, y) => {
      const at = y * stride + x * channels;
      return [out[at]!, out[at + 1]!, out[at + 2]!];
    },
  };
}

function predictor(filter: number, a: number, b: number, c: number): number {
  if (filter === 0) return 0;
  if (filter === 1) return a;
  if (filter === 2) return b;
  if (filter === 3) return (a + b) >> 1;
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Pixels of the preview mark's red (shared/render/preview-stamp.ts) in the image: red well above green and blue. */
export function markPixels(png: Buffer): number {
  const image = decodePng(png);
  let count = 0;
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.rgb(x, y);
      if (r > 150 && r - g > 25 && r - b > 25) count++;
    }
  return count;
}
