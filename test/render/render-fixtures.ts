import { readdirSync, readFileSync } from "node:fs";
import { crc32, deflateSync } from "node:zlib";
import { PDFDict, PDFDocument, PDFName, PDFRawStream } from "@cantoo/pdf-lib";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { type DesignBundle, designManifestSchema } from "#shared/designs/bundle-schema.ts";

/** A bundle built in memory; `page` and `assets` as in a design folder. */
export function makeBundle(
  template: string,
  options: { css?: string; page?: Record<string, unknown>; assets?: DesignBundle["assets"] } = {},
): DesignBundle {
  return {
    manifest: designManifestSchema.parse({ label: "test design", page: options.page ?? {}, parameters: [] }),
    template,
    css: options.css ?? "",
    assets: options.assets ?? {},
  };
}

/** A valid RGB PNG of one colour, made here so the tests ship no binary files. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, no filter, no interlace
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Text of each page as pdf.js extracts it (what copy/paste and search see). */
export async function extractPageTexts(pdf: Buffer): Promise<string[]> {
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ("str" in item ? item.str : "")).join(""));
  }
  await doc.destroy();
  return pages;
}

/** `/Subtype` of every font and image object in the PDF, e.g. ["/Type0", "/CIDFontType2", "/Image"]. */
export async function pdfObjectSubtypes(pdf: Buffer): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  const subtypes: string[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    const dict = object instanceof PDFRawStream ? object.dict : object;
    if (!(dict instanceof PDFDict)) continue;
    const type = dict.get(PDFName.of("Type"))?.toString();
    const subtype = dict.get(PDFName.of("Subtype"))?.toString();
    if (subtype && (type === "/Font" || type === "/XObject" || subtype === "/Image")) subtypes.push(subtype);
  }
  return subtypes;
}

/** `WIDTHxHEIGHT` of every image XObject in the PDF. */
export async function pdfImageSizes(pdf: Buffer): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  const sizes: string[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream) || object.dict.get(PDFName.of("Subtype"))?.toString() !== "/Image") continue;
    sizes.push(`${object.dict.get(PDFName.of("Width"))}x${object.dict.get(PDFName.of("Height"))}`);
  }
  return sizes;
}

/** Pids of the Chromium processes this test process started (children named chromium). */
export function chromiumChildPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== process.pid || state === "Z") continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("chromium")) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** Polls until `check` holds or `ms` pass; returns the last result. */
export async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
