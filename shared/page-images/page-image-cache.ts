import { type PageIndex, parsePageIndex, readPageIndex } from "./page-index.ts";

/** Where the images of one PDF are kept, and how that PDF is read when one must be drawn. */
export interface PageSource {
  /** Key prefix of this PDF's index and images (`<prefix>/index.json`, `<prefix>/<n>.png`). */
  prefix: string;
  /** The PDF's bytes: read only when the index or an image is not cached yet. */
  readPdf(): Promise<Buffer>;
}

/** The object store the cache lives in (S3 in production: s3-page-store.ts). */
export interface PageStore {
  get(key: string): Promise<Buffer | undefined>;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
}

export interface PageImageDeps {
  store: PageStore;
  /** PNG of one page (1-based), drawn by pdf.js in the renderer's Chromium (Renderer.pageImage). */
  drawPage(pdf: Buffer, pageNumber: number): Promise<Buffer>;
}

/** A page image and whether this call drew it (false: read from the cache). */
export interface PageImage {
  png: Buffer;
  drawn: boolean;
}

const indexKey = (source: PageSource) => `${source.prefix}/index.json`;
const imageKey = (source: PageSource, pageNumber: number) => `${source.prefix}/${pageNumber}.png`;

/** The PDF's page index: the cached one, else read from the PDF once and cached. */
export async function pageIndexOf(source: PageSource, store: PageStore): Promise<PageIndex> {
  const cached = await store.get(indexKey(source));
  const parsed = cached && parsePageIndex(cached.toString("utf8"));
  if (parsed) return parsed;
  const index = await readPageIndex(await source.readPdf());
  await store.put(indexKey(source), Buffer.from(JSON.stringify(index)), "application/json");
  return index;
}

/**
 * One page as PNG: the cached image, else drawn from the PDF and cached (two first requests at
 * once both draw it; same bytes, the last write stays). Undefined when the PDF has no such page
 * or is encrypted: nothing of a protected file is drawn.
 */
export async function pageImageOf(
  source: PageSource,
  pageNumber: number,
  deps: PageImageDeps,
): Promise<PageImage | undefined> {
  const cached = await deps.store.get(imageKey(source, pageNumber));
  if (cached) return { png: cached, drawn: false };
  const index = await pageIndexOf(source, deps.store);
  if (index.encrypted || pageNumber < 1 || pageNumber > index.pages.length) return undefined;
  const png = await deps.drawPage(await source.readPdf(), pageNumber);
  await deps.store.put(imageKey(source, pageNumber), png, "image/png");
  return { png, drawn: true };
}

/** A page number from a URL segment (`1`…), or undefined for anything else. */
export function parsePageNumber(raw: string | undefined): number | undefined {
  return raw !== undefined && /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : undefined;
}

/** One read of a PDF per request, however many steps need it. */
export function once<T>(read: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= read();
    return value;
  };
}
