import { degrees, PDFDocument } from "@cantoo/pdf-lib";
import { describe, expect, it } from "vitest";
import { type PageStore, pageImageOf, pageIndexOf, parsePageNumber } from "#shared/page-images/page-image-cache.ts";
import { parsePageIndex, readPageIndex } from "#shared/page-images/page-index.ts";

/** A PDF of an A4 page and a rotated one, made with pdf-lib. */
async function twoPages(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([595.28, 841.89]);
  doc.addPage([595.28, 841.89]).setRotation(degrees(90));
  return Buffer.from(await doc.save());
}

/** The cache in memory, counting writes. */
function memoryStore(): PageStore & { objects: Map<string, Buffer>; puts: number } {
  const objects = new Map<string, Buffer>();
  return {
    objects,
    puts: 0,
    async get(key) {
      return objects.get(key);
    },
    async put(key, body) {
      this.puts += 1;
      objects.set(key, body);
    },
  };
}

describe("page images (shared/page-images)", () => {
  it("indexes each page's visible size, rotation applied", async () => {
    const index = await readPageIndex(await twoPages());
    expect(index.encrypted).toBe(false);
    expect(index.pages).toEqual([
      { width: 595.28, height: 841.89 },
      { width: 841.89, height: 595.28 },
    ]);
    expect(parsePageIndex(JSON.stringify(index))).toEqual(index);
    for (const bad of ["", "{", "[]", '{"encrypted":false}', '{"encrypted":false,"pages":[{"width":0,"height":1}]}'])
      expect(parsePageIndex(bad), bad).toBeUndefined();
  });

  it("reads the PDF once for the index, draws each page once, and serves the cache afterwards", async () => {
    const pdf = await twoPages();
    const store = memoryStore();
    let reads = 0;
    const draws: number[] = [];
    const source = {
      prefix: "pages/w/r/f",
      readPdf: async () => {
        reads += 1;
        return pdf;
      },
    };
    const drawPage = async (_pdf: Buffer, n: number) => {
      draws.push(n);
      return Buffer.from(`png ${n}`);
    };
    const deps = { store, drawPage };
    expect((await pageIndexOf(source, store)).pages).toHaveLength(2);
    expect(await pageImageOf(source, 2, deps)).toEqual({ png: Buffer.from("png 2"), drawn: true });
    expect(await pageImageOf(source, 2, deps)).toEqual({ png: Buffer.from("png 2"), drawn: false });
    expect(await pageImageOf(source, 3, deps)).toBeUndefined();
    expect(draws).toEqual([2]);
    expect([...store.objects.keys()].sort()).toEqual(["pages/w/r/f/2.png", "pages/w/r/f/index.json"]);
    expect(reads).toBe(2); // the index (cached from then on), then the one drawing
  });

  it("draws nothing of an encrypted PDF", async () => {
    const store = memoryStore();
    store.objects.set("p/index.json", Buffer.from(JSON.stringify({ encrypted: true, pages: [] })));
    const drawPage = async () => {
      throw new Error("an encrypted PDF was drawn");
    };
    const source = { prefix: "p", readPdf: async () => Buffer.alloc(0) };
    expect(await pageImageOf(source, 1, { store, drawPage })).toBeUndefined();
    expect(store.puts).toBe(0);
  });

  it("takes page numbers 1… from a URL segment, nothing else", () => {
    expect(parsePageNumber("1")).toBe(1);
    expect(parsePageNumber("120")).toBe(120);
    for (const bad of [undefined, "", "0", "01", "-1", "1.5", "1e2", "x", "9999999"])
      expect(parsePageNumber(bad), String(bad)).toBeUndefined();
  });
});
